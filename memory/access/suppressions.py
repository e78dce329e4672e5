"""Which suppression reasons each kind of principal may put on an entry, as data beside
the origin table (`memory.access.origins`). Pure: no ORM import.

A suppression withholds an entry from every reader, under its reason, so who may write
one is bound to who the authenticated principal is, never to what a request says:

- `user-pause` is the member's own choice: only the member pauses (and resumes) their
  memory (`memory.pauses`, the pause button and `POST /api/v1/me/memories/{id}/pause/`).
- `tenant-quarantine` is a tenant's decision about its own memory: only an operator bound
  to that tenant (`OperatorProfile.tenant`) may write it, and only onto an entry of that
  tenant. A platform operator bound to no tenant does not decide for a tenant; nothing
  of a member's consumer memory (no tenant) is any tenant's to quarantine.
- `crisis-frame` and `sensitive-category` are set by Iris itself (a job, a cascade),
  never by a caller.
- A surface (a service client) writes no suppression at all: it cannot pause for the
  member, quarantine for a tenant or speak for Iris.

A suppression outside the writer's row is refused (403 `suppression-reason-not-allowed`),
never silently dropped or relabelled.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from iris_site.audit.enums import ActorType
from memory.enums import SuppressionReason

SUPPRESSION_NOT_ALLOWED = "suppression-reason-not-allowed"  # 403


@dataclass(frozen=True, slots=True)
class SuppressionGrant:
    reasons: frozenset[str]
    reason: str


SUPPRESSIONS_BY_WRITER: Mapping[str, SuppressionGrant] = MappingProxyType(
    {
        ActorType.MEMBER: SuppressionGrant(
            frozenset({SuppressionReason.USER_PAUSE}),
            "Only the member pauses their own memory.",
        ),
        ActorType.SERVICE: SuppressionGrant(
            frozenset(),
            "A surface never withholds a member's memory: it cannot pause for the member, "
            "quarantine for a tenant or speak for Iris.",
        ),
        ActorType.OPERATOR: SuppressionGrant(
            frozenset({SuppressionReason.TENANT_QUARANTINE}),
            "Only an operator bound to a tenant, and only on that tenant's memory.",
        ),
        ActorType.SYSTEM: SuppressionGrant(
            frozenset({SuppressionReason.CRISIS_FRAME, SuppressionReason.SENSITIVE_CATEGORY}),
            "The crisis frame and the sensitive-category hold are Iris's own.",
        ),
    }
)

# Reasons that further need the writer's tenant to be the entry's.
TENANT_BOUND: frozenset[str] = frozenset({SuppressionReason.TENANT_QUARANTINE})


@dataclass(frozen=True, slots=True)
class SuppressionDecision:
    allowed: bool
    code: str = ""
    status: int = 0
    message: str = ""


SUPPRESSION_ALLOWED = SuppressionDecision(allowed=True)


def _refused(message: str) -> SuppressionDecision:
    return SuppressionDecision(False, SUPPRESSION_NOT_ALLOWED, 403, message)


def evaluate_suppression(
    *,
    writer: str,
    reason: str,
    writer_tenant_id: str | None = None,
    entry_tenant_id: str | None = None,
) -> SuppressionDecision:
    """May this kind of writer put a suppression with ``reason`` on an entry of
    ``entry_tenant_id`` (None: consumer memory)? ``writer_tenant_id`` is the tenant an
    operator is bound to (None: a platform operator, or not an operator); both come from
    the authenticated principal and the stored entry, never from the request."""
    grant = SUPPRESSIONS_BY_WRITER.get(writer)
    if grant is None or reason not in grant.reasons:
        return _refused(f"A {writer} writer may not suppress memory with `{reason}`.")
    if reason in TENANT_BOUND and (
        writer_tenant_id is None
        or entry_tenant_id is None
        or str(writer_tenant_id) != str(entry_tenant_id)
    ):
        return _refused("Only an operator of the entry's own tenant may quarantine it.")
    return SUPPRESSION_ALLOWED


def suppression_table_markdown() -> str:
    """The table as Markdown (docs/design.md "Suppressions"; a test holds them together)."""
    lines = ["| writer | may write | why |", "|---|---|---|"]
    for writer, grant in SUPPRESSIONS_BY_WRITER.items():
        reasons = ", ".join(f"`{r}`" for r in sorted(grant.reasons)) or "nothing"
        lines.append(f"| {writer} | {reasons} | {grant.reason} |")
    return "\n".join(lines)
