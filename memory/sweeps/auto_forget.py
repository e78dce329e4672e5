"""The member's "Forget automatically after…" choices applied: by the sweep for every
member, and at once when a member makes a choice, so what is already older than it is
never recalled again.
"""

from collections import Counter
from datetime import datetime

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from iris_site.audit.actions import AuditAction
from iris_site.audit.events import Actor, audit_event_append
from iris_site.models import User
from iris_site.services import member_lock
from memory.controls import (
    AUTO_FORGET_KINDS,
    AUTO_FORGET_REASON,
    MemorySettings,
    member_auto_forget_settings,
    member_memory_settings_get,
    member_memory_settings_save,
)
from memory.enums import (
    Lifecycle,
)
from memory.forgetting.erasure import memory_erase
from memory.models import MemoryEntry
from memory.selectors import ensure_settings_open
from memory.sweeps.base import POLICY_ID, RETENTION_ACTOR


def member_auto_forget(*, now: datetime) -> dict[str, int]:
    """The members' "Forget automatically after…" choices, as an override that can only
    shorten retention: each member's entries of a scope kind they chose, last changed
    before their cutoff, are erased through `memory_erase` (the one erasure path: text
    gone from every store, a tombstone of ids and times). Entries held for a pending
    data-rights deletion are that request's. Audited per member with counts by scope
    kind; returns the erased counts by scope kind (all members)."""
    totals: Counter[str] = Counter()
    for member_id, chosen in member_auto_forget_settings():
        with transaction.atomic():
            member_lock(member_id=member_id)
            totals.update(member_auto_forget_apply(member_id=member_id, chosen=chosen, now=now))
    return dict(totals)


def member_auto_forget_apply(*, member_id, chosen, now: datetime) -> dict[str, int]:
    """One member's auto-forget choices (`chosen`, their `MemorySettings`) applied now,
    under the member lock the caller holds: by the sweep, and when the member makes a
    choice, so what is already older than it is never recalled again."""
    erased: dict[str, int] = {}
    for kind in AUTO_FORGET_KINDS:
        cutoff = chosen.auto_forget_cutoff(kind, now)
        if cutoff is None:
            continue
        due = (
            MemoryEntry.objects.filter(
                member_id=member_id,
                scope_kind=kind,
                updated_at__lt=cutoff,
                deletion_hold__isnull=True,
            )
            .filter(~Q(lifecycle=Lifecycle.TOMBSTONED) | Q(erased_digest=""))
            .order_by("pk")
            .values_list("pk", flat=True)
        )
        ids = list(due)
        if not ids:
            continue
        report = memory_erase(
            member_id=member_id,
            entry_ids=ids,
            actor=RETENTION_ACTOR,
            reason=AUTO_FORGET_REASON,
            now=now,
        )
        erased[kind] = len(report.entry_ids)
    if erased:
        audit_event_append(
            action=AuditAction.MEMORY_RETENTION_MEMBER_AUTO_FORGET,
            policy_id=POLICY_ID,
            actor=RETENTION_ACTOR,
            target_member_id=member_id,
            payload={
                "erased": [
                    {
                        "scope_kind": kind,
                        "months": chosen.auto_forget_months[kind],
                        "erased_count": n,
                    }
                    for kind, n in erased.items()
                ],
                "erased_count": sum(erased.values()),
            },
            occurred_at=now,
        )
    return erased


@transaction.atomic
def member_memory_settings_set(
    *,
    member: User,
    actor: Actor,
    stop_using: bool,
    auto_forget_months: dict,
    paused_consumers,
    now: datetime | None = None,
) -> MemorySettings:
    """Replace the member's settings (`memory.controls.member_memory_settings_save`). What is
    already older than a new auto-forget choice goes now, not at the next sweep: it is
    never recalled again once the member has chosen."""
    now = now or timezone.now()
    member_lock(member_id=member.pk)
    ensure_settings_open(member_id=member.pk)
    before = member_memory_settings_get(member_id=member.pk)
    wanted = member_memory_settings_save(
        member=member,
        actor=actor,
        stop_using=stop_using,
        auto_forget_months=auto_forget_months,
        paused_consumers=paused_consumers,
        now=now,
    )
    if wanted.auto_forget_months != before.auto_forget_months:
        member_auto_forget_apply(member_id=member.pk, chosen=wanted, now=now)
    return wanted
