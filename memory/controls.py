"""The member's own controls over how Iris uses their memory ("How Iris uses your memory").

- *Stop using my memories*: while on, the read gate withholds every long-term entry (and
  every short-term copy of one) from every surface, under `member-stopped-use`; writes
  still follow consent as before.
- *Forget automatically after…*: per scope kind, 3, 12 or 18 months (or never); from the
  instant an entry is older than the choice the read gate withholds it (and its
  short-term copies) under `member-auto-forget`, and the hourly retention sweep erases it
  (`memory.sweeps.retention`) through the one erasure path. It can only shorten retention.
- *Pause a surface*: a paused consumer reads nothing of the member's (the read gate's
  `surface-paused`) and every write path refuses it with 422 `surface-paused`.

Settings are one small row per member (`MemberMemorySettings`); every change is audited
with the settings' enum values only (`memory.settings.changed`).
"""

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from iris_site.audit.actions import AuditAction
from iris_site.audit.events import Actor, audit_event_append
from iris_site.enums import Consumer
from iris_site.errors import InvalidInput, PolicyRefusal
from iris_site.models import User
from iris_site.services import member_lock
from memory.access.gate import AUTO_FORGOTTEN, SURFACE_PAUSED
from memory.enums import ScopeKind
from memory.models import MemberMemorySettings

POLICY_ID = "iris.memory.member_settings.v1"
# The write paths' refusal code and the erasure's reason are the read gate's reasons.
AUTO_FORGET_REASON = AUTO_FORGOTTEN

# The choices a member has, in months; "never" is the kind's absence.
AUTO_FORGET_MONTHS = (3, 12, 18)
# The scope kinds that are the member's own to age out. Crisis memory is weighed by
# trust & safety, operator-copilot and tenant memory are not the member's alone: their
# retention stays the envelope's (`memory.policy.retention.retention_envelope_for_kind`).
AUTO_FORGET_KINDS = (
    ScopeKind.PROFILE,
    ScopeKind.SESSION,
    ScopeKind.SCENE,
    ScopeKind.POSE,
    ScopeKind.NOTEBOOK,
)


def months_to_days(months: int) -> int:
    """A month is a twelfth of a 365-day year, rounded: 3 → 91, 12 → 365, 18 → 548."""
    return round(months * 365 / 12)


@dataclass(frozen=True, slots=True)
class MemorySettings:
    stop_using: bool = False
    auto_forget_months: dict[str, int] = field(default_factory=dict)
    paused_consumers: frozenset[str] = frozenset()

    def auto_forget_cutoff(self, kind: str, now: datetime) -> datetime | None:
        months = self.auto_forget_months.get(kind)
        return None if months is None else now - timedelta(days=months_to_days(months))

    def as_dict(self) -> dict:
        return {
            "stop_using": self.stop_using,
            "auto_forget_months": {k: self.auto_forget_months.get(k) for k in AUTO_FORGET_KINDS},
            "paused_consumers": sorted(self.paused_consumers),
        }


DEFAULTS = MemorySettings()


def settings_of(*, stop_using, auto_forget_months, paused_consumers) -> MemorySettings:
    """A member's stored settings row's values as the settings (anything out of range in
    them ignored)."""
    return MemorySettings(
        stop_using=bool(stop_using),
        auto_forget_months={
            k: int(v)
            for k, v in (auto_forget_months or {}).items()
            if k in AUTO_FORGET_KINDS and v in AUTO_FORGET_MONTHS
        },
        paused_consumers=frozenset(c for c in (paused_consumers or []) if c in Consumer.values),
    )


def _of(row: MemberMemorySettings | None) -> MemorySettings:
    if row is None:
        return DEFAULTS
    return settings_of(
        stop_using=row.stop_using,
        auto_forget_months=row.auto_forget_months,
        paused_consumers=row.paused_consumers,
    )


def auto_forget_shortens(before: MemorySettings, months: dict) -> bool:
    """Whether choosing `months` shortens any scope's auto-forget: what is already older
    is forgotten at once (`member_memory_settings_set`), so it needs a step-up (issue
    42), as every other forgetting does."""
    for kind, chosen in months.items():
        current = before.auto_forget_months.get(kind)
        if chosen is not None and (current is None or chosen < current):
            return True
    return False


def member_memory_settings_get(*, member_id) -> MemorySettings:
    """The member's settings (the defaults when they never changed any)."""
    return _of(MemberMemorySettings.objects.filter(member_id=member_id).first())


def member_auto_forget_settings() -> list[tuple]:
    """(member id, settings) of every member with an auto-forget choice, for the sweep."""
    rows = MemberMemorySettings.objects.order_by("member_id")
    chosen = [(row.member_id, _of(row)) for row in rows.iterator()]
    return [(member_id, found) for member_id, found in chosen if found.auto_forget_months]


def surface_pause_check(*, member_id, consumer: str | None) -> None:
    """Refuse a write from a surface the member paused (422 `surface-paused`). Writes by
    the member themself, the system or an operator (no consumer) are not a surface's."""
    if not consumer:
        return
    if consumer in member_memory_settings_get(member_id=member_id).paused_consumers:
        raise PolicyRefusal(
            f"The member paused {consumer}: it neither reads nor writes their memory "
            "until they resume it.",
            code=SURFACE_PAUSED,
        )


def _validated(*, stop_using: bool, auto_forget_months: dict, paused_consumers) -> MemorySettings:
    errors: dict[str, list[str]] = {}
    months: dict[str, int] = {}
    for kind, value in (auto_forget_months or {}).items():
        if kind not in AUTO_FORGET_KINDS:
            errors.setdefault("auto_forget_months", []).append(f"Not a member scope: {kind}.")
        elif value is None:
            continue  # never
        elif isinstance(value, bool) or value not in AUTO_FORGET_MONTHS:
            errors.setdefault("auto_forget_months", []).append(
                f"{kind}: choose 3, 12 or 18 months, or null for never."
            )
        else:
            months[kind] = int(value)
    consumers = frozenset(paused_consumers or ())
    unknown = sorted(consumers - set(Consumer.values))
    if unknown:
        errors["paused_consumers"] = [f"Not a surface: {name}." for name in unknown]
    if errors:
        raise InvalidInput(fields=errors)
    return MemorySettings(
        stop_using=bool(stop_using), auto_forget_months=months, paused_consumers=consumers
    )


@transaction.atomic
def member_memory_settings_save(
    *,
    member: User,
    actor: Actor,
    stop_using: bool,
    auto_forget_months: dict,
    paused_consumers,
    now: datetime | None = None,
) -> MemorySettings:
    """Record the member's settings; audited (enum values and counts, never content)
    when anything changed. Callers change settings through
    `memory.sweeps.auto_forget.member_memory_settings_set`, which also applies a new
    auto-forget choice at once. Taken under the member lock every writer takes, so a write
    that started before a pause either commits first or is refused."""
    now = now or timezone.now()
    wanted = _validated(
        stop_using=stop_using,
        auto_forget_months=auto_forget_months,
        paused_consumers=paused_consumers,
    )
    member_lock(member_id=member.pk)
    before = member_memory_settings_get(member_id=member.pk)
    if wanted == before:
        return before
    MemberMemorySettings.objects.update_or_create(
        member=member,
        defaults={
            "stop_using": wanted.stop_using,
            "auto_forget_months": dict(wanted.auto_forget_months),
            "paused_consumers": sorted(wanted.paused_consumers),
            "changed_at": now,
        },
    )
    audit_event_append(
        action=AuditAction.MEMORY_SETTINGS_CHANGED,
        policy_id=POLICY_ID,
        actor=actor,
        target_member_id=member.pk,
        payload={
            "stop_using": wanted.stop_using,
            "auto_forget": [
                {"scope_kind": kind, "months": wanted.auto_forget_months[kind]}
                for kind in AUTO_FORGET_KINDS
                if kind in wanted.auto_forget_months
            ],
            "paused_consumers": sorted(wanted.paused_consumers),
            "paused_count": len(wanted.paused_consumers),
        },
        occurred_at=now,
    )
    return wanted
