"""`manage.py keys_rotate`: re-wrap every member's data key under the key-encryption
keyset's primary key (the second step of a KEK rotation; docs/encryption.md)."""

from django.core.management.base import BaseCommand, CommandError

from iris_site.audit.actions import AuditAction
from iris_site.audit.events import Actor, audit_event_append
from iris_site.keys import envelope
from iris_site.keys.kek import KeyUnwrapFailed, wrapper

POLICY_ID = "iris.iris_site.keys.v1"
DESTROYED = "(destroyed)"  # a shredded key's tombstone has no KEK


def _counts(store) -> dict[str, int]:
    return {str(k) if k is not None else DESTROYED: v for k, v in store.count_by_kek().items()}


def _stale(counts: dict[str, int], primary: str) -> int:
    """Live keys wrapped by a KEK other than the primary."""
    return sum(v for k, v in counts.items() if k not in (primary, DESTROYED))


class Command(BaseCommand):
    help = (
        "Rotate the key-encryption key (KEK): re-wrap every live member data key under the "
        "keyset's PRIMARY key, then print how many keys each KEK id wraps, before and after. "
        "A rotation: (1) add a new key to the keyset (IRIS_KEK or IRIS_KEK_FILE) and make it "
        "primary, keeping the old one listed, and deploy; (2) run this command; (3) run it "
        "with --check, which exits 1 while any key is still wrapped by another KEK; (4) only "
        "then remove the old key from the keyset. Safe under load and to re-run: it pages "
        "through the key store in key order, skips keys already under the primary, and "
        "re-wraps a key only if it is still as read (a key destroyed or re-wrapped meanwhile "
        "is left alone). Data keys themselves never change, so no content is re-encrypted."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--check",
            action="store_true",
            help="Change nothing: exit 1 if any live key is wrapped by a KEK other than the "
            "primary (the old KEK cannot be removed yet), 0 otherwise.",
        )
        parser.add_argument(
            "--batch-size",
            type=int,
            default=500,
            help="Keys read from the key store per page (default 500).",
        )

    def handle(self, *args, check: bool, batch_size: int, **options):
        store = envelope.key_store()
        keyset = wrapper()
        primary = keyset.primary
        before = _counts(store)
        self._report("before", before, primary)
        if check:
            stale = {k: v for k, v in before.items() if k not in (primary, DESTROYED)}
            if stale:
                raise CommandError(
                    f"{sum(stale.values())} key(s) still wrapped by KEK(s) other than the "
                    f"primary {primary!r}: {', '.join(sorted(stale))}. Run keys_rotate first."
                )
            self.stdout.write(f"every live key is wrapped by the primary KEK {primary!r}")
            return
        rewrapped = skipped = failed = 0
        after = ("", 0)
        while page := store.live(after=after, limit=batch_size):
            for record in page:
                if record.kek_id == primary:
                    continue
                context = envelope._wrap_context(record.member_id, record.generation)
                try:
                    data_key = keyset.unwrap(record.kek_id, record.wrapped, context=context)
                except KeyUnwrapFailed:
                    failed += 1
                    self.stderr.write(
                        f"member {record.member_id} generation {record.generation}: its KEK "
                        f"{record.kek_id!r} does not open it (not in the keyset, or altered)"
                    )
                    continue
                kek_id, wrapped = keyset.wrap(data_key, context=context)
                if store.rewrap(record, kek_id=kek_id, wrapped=wrapped):
                    rewrapped += 1
                else:
                    skipped += 1  # destroyed or re-wrapped since it was read
            after = (page[-1].member_id, page[-1].generation)
        finished = _counts(store)
        self._report("after", finished, primary)
        self.stdout.write(f"re-wrapped {rewrapped}, changed meanwhile {skipped}, failed {failed}")
        audit_event_append(
            action=AuditAction.IRIS_SITE_MEMBER_KEYS_REWRAPPED,
            policy_id=POLICY_ID,
            actor=Actor.system("keys-rotate"),
            payload={  # counts only (KEK ids are operator-chosen strings)
                "rewrapped_count": rewrapped,
                "changed_count": skipped,
                "failed_count": failed,
                "stale_before_count": _stale(before, primary),
                "stale_after_count": _stale(finished, primary),
            },
        )
        if failed:
            raise CommandError(f"{failed} key(s) could not be unwrapped; see above")

    def _report(self, when: str, counts: dict[str, int], primary: str) -> None:
        self.stdout.write(f"keys by KEK, {when}:")
        for kek_id, count in sorted(counts.items()):
            mark = " (primary)" if kek_id == primary else ""
            self.stdout.write(f"  {kek_id}{mark}: {count}")
