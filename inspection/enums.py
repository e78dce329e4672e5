"""The inspection vocabulary, with seed 001's exact state names and reason codes."""

from django.db import models


class InspectionState(models.TextChoices):
    """Where an operator's request to look at a member's memory stands."""

    # Opened with a justification; no path chosen yet, nothing visible.
    REQUESTED = "requested"
    # Entry path: fulfilling the member's own data-rights request (legal's sensitive path).
    DSAR_FULFILLMENT = "dsar-fulfillment"
    # Entry path: a safety incident with a signed incident reference (t&s's sensitive path).
    INCIDENT_ESCALATION = "incident-escalation"
    # Entry path: routine quality or support review; never reaches sensitive memory.
    ROUTINE_REVIEW = "routine-review"
    # The policy gate said yes: the pinned snapshot is readable until the time box ends.
    GRANTED = "granted"
    # Terminal: refused by the gate, declined by an operator, or left undecided too long.
    DENIED = "denied"
    # Terminal: the grant ended (by the operator, or by its time box).
    CLOSED = "closed"


class ReasonCode(models.TextChoices):
    """Why a request ended the way it did. The first four are the seed's gate codes."""

    CROSS_TENANT = "cross-tenant"  # the target or scope lies outside the operator's tenant
    SCOPE_OUT_OF_BOUNDS = "scope-out-of-bounds"  # scope not the target's, or not reviewable
    NO_LEGITIMATE_INTEREST = "no-legitimate-interest"  # no reason, or wrong role or path
    CONSENT_NOT_CURRENT = "consent-not-current"  # sensitive memory without consent in force
    EXPIRED = "expired"  # undecided past the decision window (the expiry job)
    DECLINED = "declined"  # an operator denied the request by hand
    GRANT_EXPIRED = "grant-expired"  # the grant's time box ran out (the close job)


# The seed's policy-gate refusals, as opposed to codes written by people or jobs.
GATE_REASON_CODES: frozenset[str] = frozenset(
    {
        ReasonCode.CROSS_TENANT,
        ReasonCode.SCOPE_OUT_OF_BOUNDS,
        ReasonCode.NO_LEGITIMATE_INTEREST,
        ReasonCode.CONSENT_NOT_CURRENT,
    }
)


class NoticeState(models.TextChoices):
    PENDING = "pending"  # queued at close; the delivery job has not run yet
    DELIVERED = "delivered"  # visible to the member


class ReadKind(models.TextChoices):
    SNAPSHOT = "snapshot"  # the operator's working view of the pinned entries
    REPLAY = "replay"  # the pinned set reconstructed from revisions, with its proof


class ReplayItemStatus(models.TextChoices):
    AS_GRANTED = "as-granted"  # the revision still exists: its content is what was seen
    PURGED = "purged"  # erased by a hard delete since the grant: erasure wins
