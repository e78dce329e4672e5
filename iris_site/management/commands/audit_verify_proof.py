import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from iris_site.audit.checkpoint import verify_keys
from iris_site.audit.seal import SealError, keyring, proof_check, proof_summary, public_key_argument


class Command(BaseCommand):
    help = (
        "Verify a member's audit chain and inclusion proof (their decrypted export bundle) "
        "with this platform's verify keys. Without Iris's settings or database: "
        "`python -m iris_site.audit.seal FILE --public-key KEY`."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("file")
        parser.add_argument(
            "--public-key",
            action="append",
            default=[],
            help="verify with this key (base64, or a PEM file) instead of the configured ones",
        )

    def handle(self, *args, **options) -> None:
        try:
            keys = (
                keyring(public_key_argument(value) for value in options["public_key"])
                if options["public_key"]
                else verify_keys()
            )
            report = proof_check(json.loads(Path(options["file"]).read_text()), keys)
        except (SealError, OSError, ValueError) as exc:
            raise CommandError(f"NOT VERIFIED: {exc}") from exc
        self.stdout.write(self.style.SUCCESS(f"verified: {proof_summary(report)}"))
