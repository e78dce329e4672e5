from django.core.management.base import BaseCommand, CommandError

from iris_site.audit.checkpoint import audit_checkpoint_seal, signing_key
from iris_site.audit.seal import key_id, public_key_text
from iris_site.errors import Conflict


class Command(BaseCommand):
    help = (
        "Seal a signed checkpoint over every audit chain's head now (the scheduled job "
        "does it every ten minutes); --public-key prints the key members verify with."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--public-key",
            action="store_true",
            help="print the signing key's id and public key (base64) instead of sealing",
        )

    def handle(self, *args, **options) -> None:
        if options["public_key"]:
            key = signing_key()
            if key is None:
                raise CommandError("no audit signing key is configured")
            public = key.public_key()
            self.stdout.write(f"{key_id(public)} {public_key_text(public)}")
            return
        try:
            checkpoint = audit_checkpoint_seal()
        except Conflict as exc:
            raise CommandError(exc.message) from exc
        if checkpoint is None:
            self.stdout.write("no chain has moved since the last checkpoint; nothing sealed")
            return
        self.stdout.write(
            self.style.SUCCESS(
                f"sealed checkpoint {checkpoint.number}: {checkpoint.tree_size} chain heads, "
                f"root {checkpoint.root}, key {checkpoint.key_id}, "
                f"deployment {checkpoint.deployment}"
            )
        )
