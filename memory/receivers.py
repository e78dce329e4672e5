"""Memory's answers to other apps' signals."""

from django.db import transaction
from django.dispatch import receiver
from django.utils import timezone

from consent.signals import consent_ended
from iris_site.audit.sealing import audit_member_key_destroy, audit_member_key_exists
from iris_site.idempotency import idempotency_records_erase, idempotency_records_residue
from iris_site.models import AuditMemberKey, IdempotencyRecord
from memory.changes import consent_withdrawn
from memory.forgetting.services import memory_consent_cascade
from memory.forgetting.stores import ContentStore, Erasure, ExtentKind, content_store_register
from memory.signals import member_content_clear


@receiver(consent_ended, dispatch_uid="memory.consent_cascade")
def forget_on_consent_ended(sender, *, member_id, consent_type: str, **kwargs) -> None:
    """A withdrawn or expired `category:<c>` consent forgets that category's memory and the
    summaries derived from it; other consent types are not memory's to act on here.

    The signal is sent after the consent transaction commits; should this cascade be lost
    (a crash in between), the retention sweep's consent reconciliation catches up.
    """
    with transaction.atomic():
        # The surfaces given memory the consent covered are told, before the cascade
        # erases it (and the records of who was given it).
        consent_withdrawn(member_id=member_id, consent_type=consent_type, now=timezone.now())
        memory_consent_cascade(member_id=member_id, consent_type=consent_type)


# --- Idempotency keys ------------------------------------------------------------------------
# A retry's key remembers which resource its write made (ids only). When that resource is
# erased, the key is marked gone: a retry is 410 and never writes it again, and nothing of
# the write (its fingerprint, its reference) stays (`iris_site.idempotency`).


def _idempotency_erase(erasure: Erasure) -> int:
    return idempotency_records_erase(
        member_id=erasure.member_id, mentions=erasure.matcher.id_in, everything=erasure.everything
    )


def _idempotency_residue(erasure: Erasure) -> int:
    return idempotency_records_residue(
        member_id=erasure.member_id, mentions=erasure.matcher.id_in, everything=erasure.everything
    )


content_store_register(
    ContentStore(
        name="idempotency-keys",
        erase=_idempotency_erase,
        residue=_idempotency_residue,
        order=10,
        tables=(IdempotencyRecord._meta.db_table,),
        extents={
            ExtentKind.FACT: "marks gone every retry key whose write made an erased entry",
            ExtentKind.PERSON: "marks gone the keys of the person's erased entries",
            ExtentKind.CONVERSATION: "marks gone the keys of the conversation's erased entries",
            ExtentKind.SCOPE: "marks gone the keys of the scope's erased entries",
            ExtentKind.CATEGORY: "marks gone the keys of the category's erased entries",
            ExtentKind.EVERYTHING: "marks gone every key whose write made member content",
        },
    )
)


# --- The member's audit key ------------------------------------------------------------------
# Special-category values in the member's audit events are keyed digests under this key
# (`iris_site.audit.sealing`). Erasing everything for good (the full clear's purge, a
# data-rights delete of every scope) destroys it: the chain still verifies, and no listing
# can tell any more which category a digest was. A forget of less keeps it.


def _audit_key_erase(erasure: Erasure) -> int:
    if not (erasure.purge and erasure.everything):
        return 0
    return audit_member_key_destroy(member_id=erasure.member_id)


def _audit_key_residue(erasure: Erasure) -> int:
    if not (erasure.purge and erasure.everything):
        return 0
    return int(audit_member_key_exists(member_id=erasure.member_id))


content_store_register(
    ContentStore(
        name="audit-member-key",
        erase=_audit_key_erase,
        residue=_audit_key_residue,
        order=95,
        tables=(AuditMemberKey._meta.db_table,),
        extents={
            ExtentKind.FACT: "keeps the key (only a covered listing resolves with it)",
            ExtentKind.PERSON: "keeps the key",
            ExtentKind.CONVERSATION: "keeps the key",
            ExtentKind.SCOPE: "keeps the key (a purge of every scope: destroys it)",
            ExtentKind.CATEGORY: "keeps the key: a covered listing still resolves the "
            "category's sealed audit values",
            ExtentKind.EVERYTHING: "a purge destroys the key: the audit's sealed "
            "special-category values resolve no more, the chain still verifies",
        },
    )
)


@receiver(member_content_clear, dispatch_uid="memory.idempotency_keys_clear")
def idempotency_keys_clear(sender, *, member_id, **kwargs) -> None:
    """A full clear: every key whose write made member content is gone from now on."""
    idempotency_records_erase(member_id=member_id, everything=True)
