"""What a switch on the member's pages does before it happens (issue 47, item 2): which
kinds of memory stop, which of the member's memories every assistant stops seeing, and
which are forgotten. Computed from the same inputs the read gate and the consent cascade
use (`memory.policy.scopes.evaluate_kind_policy` over the member's consents in force and
opt-outs; `memory.forgetting.services.memory_consent_cascade`), so the preview's counts are
what the server then does; after the switch, `hidden_after` counts it again from the state
the server holds."""

from dataclasses import dataclass, field

from consent.enums import CATEGORY_PREFIX, BaseConsentType
from consent.selectors import consent_gate_state
from memory.enums import Lifecycle, is_sensitive_category
from memory.labels import category_label, lower_first
from memory.models import MemoryEntry
from memory.policy.scopes import KIND_BLUEPRINTS, build_scope_policies, evaluate_kind_policy
from memory.scopes import SCOPE_WORDS
from memory.selectors import memory_entry_list

EXAMPLES = 3

# What stops, in the member's words, beyond the kinds of memory that turn off.
CONSENT_STOPS: dict[str, str] = {
    BaseConsentType.DATA_PROCESSING: "Iris stops using what you share to answer you: no "
    "assistant recalls your memories, your short-term notes or your past conversations, "
    "and nothing new is kept.",
    BaseConsentType.DATA_STORAGE: "Iris stops keeping memories between conversations: "
    "nothing new is kept, and what is already kept is hidden from every assistant.",
    BaseConsentType.SENSITIVE_DATA: "Iris stops keeping and using sensitive measurements, "
    "such as your posture and movement.",
    BaseConsentType.CROSS_DEVICE: "An assistant on another of your devices no longer "
    "picks up sensitive things you said on this one.",
    BaseConsentType.MULTI_ACTOR_SENSITIVE: "Iris stops keeping sensitive things about people "
    "you mention, and forgets those it kept.",
}


def consent_stops(consent_type: str) -> str:
    category = consent_type.removeprefix(CATEGORY_PREFIX)
    if category != consent_type:
        return (
            f"Iris stops remembering anything about {lower_first(category_label(category))}, "
            "and forgets what it kept, with the summaries made from it."
        )
    return CONSENT_STOPS.get(consent_type, "")


def usable_kinds(consent_types: frozenset[str], opt_outs: frozenset[str]) -> frozenset[str]:
    """The scope kinds an assistant may use under these consents and opt-outs."""
    return frozenset(
        kind
        for kind in KIND_BLUEPRINTS
        if evaluate_kind_policy(kind, active_consent_types=consent_types, opt_outs=opt_outs).enabled
    )


def _enabled_scopes(consent_types: frozenset[str], opt_outs: frozenset[str]) -> set[str]:
    return {
        scope
        for scope, policy in build_scope_policies(
            active_consent_types=consent_types, opt_outs=opt_outs
        ).items()
        if policy.enabled
    }


def member_usable_kinds(member_id) -> frozenset[str]:
    active, opt_outs = consent_gate_state(member_id=member_id)
    return usable_kinds(active.types, opt_outs)


def _in_use(member_id):
    return memory_entry_list(member_id=member_id).filter(lifecycle=Lifecycle.ACTIVE)


def hidden_after(member_id, *, before: frozenset[str]) -> int:
    """How many of the member's memories in use were in a kind usable `before` and are in
    one no assistant may use now: what a switch just hid."""
    lost = before - member_usable_kinds(member_id)
    return _in_use(member_id).filter(scope_kind__in=sorted(lost)).count() if lost else 0


@dataclass(frozen=True, slots=True)
class Consequence:
    """What a switch will do: `stops` (sentences), `scopes_off` (the kinds of memory that
    turn off, by name), and the memories `forgotten` and `hidden` (counts, and a few of
    the member's own as examples)."""

    stops: tuple[str, ...]
    scopes_off: tuple[str, ...]
    forgotten: int
    hidden: int
    forgotten_examples: tuple[str, ...] = field(default=())
    hidden_examples: tuple[str, ...] = field(default=())

    @property
    def changes_nothing_kept(self) -> bool:
        return not (self.forgotten or self.hidden)


def _forgotten_by(member_id, consent_type: str):
    """The memories the consent cascade forgets when this consent ends."""
    entries = memory_entry_list(member_id=member_id)
    if consent_type == BaseConsentType.MULTI_ACTOR_SENSITIVE:
        return entries.filter(sensitive_interaction=True)
    category = consent_type.removeprefix(CATEGORY_PREFIX)
    if category != consent_type and is_sensitive_category(category):
        return entries.filter(category=category)
    return MemoryEntry.objects.none()


def forgotten_count(member_id, consent_type: str) -> int:
    return _forgotten_by(member_id, consent_type).count()


def _examples(entries) -> tuple[str, ...]:
    return tuple(e.body for e in entries.order_by("-updated_at", "id")[:EXAMPLES])


def consequence_of(
    member_id, *, withdraw: str | None = None, opt_out: str | None = None
) -> Consequence:
    """What withdrawing `withdraw` or turning off `opt_out` will do for this member now."""
    active, opt_outs = consent_gate_state(member_id=member_id)
    after_types = active.types - {withdraw} if withdraw else active.types
    after_opt_outs = opt_outs | {opt_out} if opt_out else opt_outs
    lost = usable_kinds(active.types, opt_outs) - usable_kinds(after_types, after_opt_outs)
    forgotten = _forgotten_by(member_id, withdraw) if withdraw else MemoryEntry.objects.none()
    forgotten_ids = list(forgotten.values_list("pk", flat=True))
    hidden = (
        _in_use(member_id).filter(scope_kind__in=sorted(lost)).exclude(pk__in=forgotten_ids)
        if lost
        else MemoryEntry.objects.none()
    )
    scopes_off = sorted(
        _enabled_scopes(active.types, opt_outs) - _enabled_scopes(after_types, after_opt_outs)
    )
    return Consequence(
        stops=(consent_stops(withdraw),) if withdraw and consent_stops(withdraw) else (),
        scopes_off=tuple(SCOPE_WORDS[s][0] for s in scopes_off),
        forgotten=len(forgotten_ids),
        hidden=hidden.count(),
        forgotten_examples=_examples(forgotten),
        hidden_examples=_examples(hidden),
    )
