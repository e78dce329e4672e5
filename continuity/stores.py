"""Continuity's content store (registered from `ContinuityConfig.ready()` in the registry
of `memory.forgetting.stores`): continuation tokens carry references and posture, never content, but
their anchor and cursor are strings a surface chose. A token whose anchor or cursor names
an erased entry or repeats its text goes with it (its notices by cascade; a retry of the
write that made it is then 410, `iris_site.idempotency`)."""

from continuity.models import ContinuationToken, ContinuityNotice
from continuity.services import POLICY_ID
from iris_site.audit.actions import AuditAction
from iris_site.audit.enums import Severity
from iris_site.audit.events import Actor, audit_event_append
from memory.forgetting.stores import ContentStore, Erasure, ExtentKind


def _matching(erasure: Erasure) -> list:
    def hit(*values: str) -> bool:
        return any(erasure.matcher.id_in(v) or erasure.holds(v) for v in values)

    slots = {
        pk
        for pk, anchor, cursor in ContinuationToken.objects.filter(
            member_id=erasure.member_id
        ).values_list("pk", "anchor_id", "cursor")
        if hit(anchor, cursor)
    }
    slots |= {
        token_id
        for token_id, anchor, cursor in ContinuityNotice.objects.filter(
            member_id=erasure.member_id
        ).values_list("token_id", "superseded_anchor_id", "superseded_cursor")
        if hit(anchor, cursor)
    }
    return sorted(slots, key=str)


def _erase(erasure: Erasure) -> int:
    slots = _matching(erasure)
    if not slots:
        return 0
    ContinuationToken.objects.filter(member_id=erasure.member_id, pk__in=slots).delete()
    audit_event_append(
        action=AuditAction.CONTINUITY_TOKENS_ERASED,
        policy_id=POLICY_ID,
        actor=Actor.system(erasure.reason),
        severity=Severity.WARNING,
        target_member_id=erasure.member_id,
        payload={"erased_count": len(slots), "slot_ids": [str(s) for s in slots][:1000]},
    )
    return len(slots)


def _residue(erasure: Erasure) -> int:
    return len(_matching(erasure))


CONTINUATION_TOKENS_STORE = ContentStore(
    name="continuation-tokens",
    erase=_erase,
    residue=_residue,
    order=20,
    tables=(ContinuationToken._meta.db_table, ContinuityNotice._meta.db_table),
    extents={
        ExtentKind.FACT: "deletes tokens whose anchor or cursor names or repeats an erased entry",
        ExtentKind.PERSON: "deletes tokens whose anchor or cursor mentions the person",
        ExtentKind.CONVERSATION: "deletes tokens naming the conversation's erased entries",
        ExtentKind.SCOPE: "deletes tokens naming the scope's erased entries",
        ExtentKind.CATEGORY: "deletes tokens naming the category's erased entries",
        ExtentKind.EVERYTHING: "deletes tokens naming any erased entry",
    },
)
