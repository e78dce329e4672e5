"""What each assistant surface may do: the capability table, as data, beside the scope
blueprints it is derived from. Pure: no ORM import.

A service client's capabilities come from its consumer name and nothing the request
says. Request fields (`surface`, `context`, scope `kind`) may only pick within them: a
value outside is refused with 403 and a stable code, never silently upgraded or
downgraded. A platform operator may narrow one client further in the admin
(`memory.ServiceClientCapabilities`); the narrowing is intersected with this table, so it
can never widen it.

Where the seed is silent the table grants the least that still lets the surface do its
job; each row says why (docs/design.md's "Capabilities" table is generated from the same
reasons, and a test holds the two together).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from iris_site.enums import Consumer
from iris_site.errors import NotPermitted
from memory.enums import RecallContext, ScopeKind
from memory.policy.scopes import consumer_may_use_kind

ADMIN_SURFACE = "admin"  # the operators' budget; no service client may ever claim it

# Refusal codes (the API's 403 `error.code`).
SURFACE_NOT_ALLOWED = "surface-not-allowed"
CONTEXT_NOT_ALLOWED = "context-not-allowed"
KIND_NOT_ALLOWED = "consumer-not-allowed-for-scope"

_C = RecallContext
_EVERY_CONTEXT = frozenset(RecallContext.values)


@dataclass(frozen=True, slots=True)
class ConsumerGrant:
    """One consumer's row of the table: budgets and contexts, and why."""

    surfaces: frozenset[str]
    contexts: frozenset[str]
    reason: str


CONSUMER_GRANTS: Mapping[str, ConsumerGrant] = MappingProxyType(
    {
        Consumer.ASSISTANT: ConsumerGrant(
            frozenset({"assistant", "shell"}),
            _EVERY_CONTEXT,
            "The member's general conversational surface: it routes into every domain, so "
            "it may claim every context; its own budget (12) or the shell's.",
        ),
        Consumer.SHELL: ConsumerGrant(
            frozenset({"shell"}),
            frozenset({_C.GENERAL, _C.SAFETY, _C.CRISIS}),
            "Intent routing with a three-entry budget: it hands sensitive topics to the "
            "domain surfaces and keeps only the safety frame (it is on the crisis "
            "blueprint).",
        ),
        Consumer.NOTEBOOK: ConsumerGrant(
            frozenset({"notebook", "shell"}),
            frozenset({_C.GENERAL}),
            "Study notebooks: the only surface with the notebook budget (999, rationales "
            "shown); notes are not a sensitive context.",
        ),
        Consumer.TARA: ConsumerGrant(
            frozenset({"shell"}),
            frozenset({_C.GENERAL, _C.HEALTH, _C.SAFETY}),
            "Recovery companion: the seed's own example of health memory surfacing "
            '("in Tara recovery"), with the safety frame.',
        ),
        Consumer.VERITAS: ConsumerGrant(
            frozenset({"shell"}),
            frozenset({_C.GENERAL}),
            "Briefings: the seed's own example of where health memory never surfaces; no "
            "sensitive context at all.",
        ),
        Consumer.NYX: ConsumerGrant(
            frozenset({"shell"}),
            frozenset({_C.GENERAL}),
            "A domain product the seed gives no sensitive role: general context only.",
        ),
        Consumer.ARETE: ConsumerGrant(
            frozenset({"shell"}),
            frozenset({_C.GENERAL}),
            "A domain product the seed gives no sensitive role: general context only.",
        ),
        Consumer.NISABA: ConsumerGrant(
            frozenset({"shell"}),
            frozenset({_C.GENERAL}),
            "Editions and reading: general context only.",
        ),
        Consumer.METIS: ConsumerGrant(
            frozenset({"shell"}),
            frozenset({_C.GENERAL}),
            "Courses and institutional learner state: general context only.",
        ),
        Consumer.STUDIO: ConsumerGrant(
            frozenset({"shell"}),
            frozenset({_C.GENERAL, _C.HEALTH}),
            "On the pose blueprint: pose alignment is health-context memory, so it needs "
            "the health context to use what it may read.",
        ),
        Consumer.PSYCHE: ConsumerGrant(
            frozenset({"shell"}),
            frozenset({_C.GENERAL, _C.SAFETY, _C.CRISIS}),
            "The real-time runtime, on the crisis blueprint: the safety frame only.",
        ),
        Consumer.LIVING_SCENE: ConsumerGrant(
            frozenset({"shell"}),
            frozenset({_C.GENERAL}),
            "Scene rendering: general context only.",
        ),
    }
)


def _kinds_for(consumer: str) -> frozenset[str]:
    # The blueprints' `allowed_consumers` already say which kinds a consumer may touch;
    # the table does not restate them.
    return frozenset(kind for kind in ScopeKind.values if consumer_may_use_kind(consumer, kind))


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What one authenticated service client may claim."""

    consumer: str
    surfaces: frozenset[str]
    contexts: frozenset[str]
    read_kinds: frozenset[str]
    write_kinds: frozenset[str]

    def narrowed(
        self,
        *,
        surfaces: Iterable[str] | None = None,
        contexts: Iterable[str] | None = None,
        read_kinds: Iterable[str] | None = None,
        write_kinds: Iterable[str] | None = None,
    ) -> Capabilities:
        """The intersection with an operator's narrowing (None keeps a dimension)."""

        def keep(current: frozenset[str], given: Iterable[str] | None) -> frozenset[str]:
            return current if given is None else current & frozenset(given)

        return Capabilities(
            consumer=self.consumer,
            surfaces=keep(self.surfaces, surfaces),
            contexts=keep(self.contexts, contexts) | {RecallContext.GENERAL},
            read_kinds=keep(self.read_kinds, read_kinds),
            write_kinds=keep(self.write_kinds, write_kinds),
        )

    # --- checks: each raises the API's 403 ------------------------------------------------

    def require_surface(self, surface: str) -> str:
        if surface == ADMIN_SURFACE or surface not in self.surfaces:
            raise NotPermitted(
                f"Consumer `{self.consumer}` may not use the `{surface}` surface; it may use "
                f"{_listing(self.surfaces)}.",
                code=SURFACE_NOT_ALLOWED,
            )
        return surface

    def require_context(self, context: str) -> str:
        if context not in self.contexts:
            raise NotPermitted(
                f"Consumer `{self.consumer}` may not claim the `{context}` context; it may "
                f"claim {_listing(self.contexts)}.",
                code=CONTEXT_NOT_ALLOWED,
            )
        return context

    def require_read_kind(self, kind: str) -> str:
        if kind not in self.read_kinds:
            raise NotPermitted(
                f"Consumer `{self.consumer}` may not read {kind} memory.", code=KIND_NOT_ALLOWED
            )
        return kind

    def require_write_kind(self, kind: str) -> str:
        if kind not in self.write_kinds:
            raise NotPermitted(
                f"Consumer `{self.consumer}` may not write {kind} memory.", code=KIND_NOT_ALLOWED
            )
        return kind


def _listing(values: Iterable[str]) -> str:
    return ", ".join(f"`{v}`" for v in sorted(values)) or "none"


def capabilities_for(consumer: str) -> Capabilities:
    """The table's capabilities of a consumer (before any per-client narrowing). An
    unknown consumer gets none at all."""
    grant = CONSUMER_GRANTS.get(consumer)
    if grant is None:
        return Capabilities(consumer, frozenset(), frozenset(), frozenset(), frozenset())
    kinds = _kinds_for(consumer)
    return Capabilities(
        consumer=consumer,
        # A surface may always name itself: an unknown surface name gets the shell's
        # budget (`memory.recall.budget_for`), so that is never more than the table's.
        surfaces=grant.surfaces | {consumer},
        contexts=grant.contexts | {RecallContext.GENERAL},
        read_kinds=kinds,
        write_kinds=kinds,
    )


def capability_table_markdown() -> str:
    """The table as Markdown: docs/design.md's "Capabilities" section and the OpenAPI
    descriptions of recall, the context bundle and short-term memory print this."""
    lines = [
        "| consumer | surfaces (budgets) | contexts | scope kinds (read, write) | why |",
        "|---|---|---|---|---|",
    ]
    for consumer in Consumer.values:
        caps, grant = capabilities_for(consumer), CONSUMER_GRANTS[consumer]
        lines.append(
            f"| `{consumer}` | {_listing(caps.surfaces)} | {_listing(caps.contexts)} "
            f"| {_listing(caps.read_kinds)} | {grant.reason} |"
        )
    return "\n".join(lines)
