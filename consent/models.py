import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q

from consent.enums import (
    CATEGORY_PREFIX,
    CONSENT_TYPES,
    CaptureMethod,
    ConsentEventKind,
    ConsentStatus,
    LegalBasis,
    OptOutCategory,
    OptOutEventKind,
    SensitiveCategory,
)
from consent.policy import RECORD_VERSION
from iris_site.appendonly import append_only_triggers
from iris_site.audit.events import iso


class ConsentEvent(models.Model):
    """One append-only entry of a member's consent ledger (grant, withdrawal, expiry, denial).

    Each event is fingerprinted (FNV-1a over its canonical body, for drift) and chained
    to the member's previous event (SHA-256, for tamper evidence).
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    member = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="consent_events",
        editable=False,
    )
    # Position in the member's ledger; strictly increasing, gaps only after a purge.
    sequence = models.PositiveIntegerField(editable=False)
    consent_type = models.CharField(
        max_length=64, choices=[(t, t) for t in CONSENT_TYPES], editable=False
    )
    kind = models.CharField(max_length=16, choices=ConsentEventKind, editable=False)
    status = models.CharField(max_length=16, choices=ConsentStatus, editable=False)
    legal_basis = models.CharField(max_length=32, choices=LegalBasis, editable=False)
    capture_method = models.CharField(max_length=32, choices=CaptureMethod, editable=False)
    terms_version = models.CharField(max_length=32, editable=False)
    terms_hash = models.CharField(max_length=64, editable=False)
    # How the capture was witnessed: "session", "token:<id>", "operator:<id>", "system:<job>".
    witness = models.CharField(max_length=96, editable=False)
    occurred_at = models.DateTimeField(editable=False)
    recorded_at = models.DateTimeField(editable=False)
    # A grant may end by itself; the expiry job then appends an `expiry` event.
    valid_until = models.DateTimeField(null=True, blank=True, editable=False)
    # A withdrawal or expiry points at the grant it ends.
    # DO_NOTHING: rows are never deleted except by the purge, which takes both ends.
    supersedes = models.ForeignKey(
        "self", on_delete=models.DO_NOTHING, null=True, blank=True, editable=False, related_name="+"
    )
    record_version = models.PositiveSmallIntegerField(default=RECORD_VERSION, editable=False)
    fingerprint = models.CharField(max_length=16, editable=False)
    previous_hash = models.CharField(max_length=64, editable=False)
    hash = models.CharField(max_length=64, editable=False)

    class Meta:
        ordering = ["member_id", "sequence"]
        indexes = [
            models.Index(
                fields=["member", "consent_type", "-sequence"], name="consent_member_type_seq"
            ),
            models.Index(
                fields=["valid_until"],
                name="consent_grant_valid_until",
                condition=Q(kind=ConsentEventKind.GRANT, valid_until__isnull=False),
            ),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["member", "sequence"],
                name="%(app_label)s_%(class)s_unique_sequence",
                violation_error_message="The ledger already has an event at this position.",
            ),
            models.CheckConstraint(
                condition=(
                    Q(kind=ConsentEventKind.GRANT, status=ConsentStatus.GRANTED)
                    | Q(kind=ConsentEventKind.WITHDRAWAL, status=ConsentStatus.WITHDRAWN)
                    | Q(kind=ConsentEventKind.EXPIRY, status=ConsentStatus.EXPIRED)
                    | Q(kind=ConsentEventKind.DENIAL, status=ConsentStatus.DENIED)
                ),
                name="%(app_label)s_%(class)s_status_matches_kind",
                violation_error_message="An event's status follows from its kind.",
            ),
            models.CheckConstraint(
                condition=Q(supersedes__isnull=True)
                | Q(kind__in=[ConsentEventKind.WITHDRAWAL, ConsentEventKind.EXPIRY]),
                name="%(app_label)s_%(class)s_only_endings_supersede",
                violation_error_message="Only a withdrawal or an expiry supersedes a grant.",
            ),
        ]
        # Purged by consent type (never a single withdrawal) by the data-rights hard
        # delete; the rest is re-chained after.
        triggers = append_only_triggers(
            purgeable=True,
            chain_columns=("previous_hash", "hash"),
            purged_whole_by=("member_id", "consent_type"),
        )

    def __str__(self) -> str:
        # Shown wherever the row is named (the admin's titles and breadcrumbs): a consent
        # naming a special category is never said there, only that it is one (issue 42).
        category = self.consent_type.removeprefix(CATEGORY_PREFIX)
        special = category != self.consent_type and category in SensitiveCategory.values
        shown = "special-category" if special else self.consent_type
        return f"{self.kind} {shown} #{self.sequence}"

    def save(self, *args, **kwargs) -> None:
        if not self._state.adding:
            raise ValueError("consent events are append-only")
        super().save(*args, **kwargs)

    def body(self) -> dict:
        """What the fingerprint covers: everything the member agreed to, and when."""
        return {
            "record_version": self.record_version,
            "id": str(self.id),
            "member_id": str(self.member_id),
            "sequence": self.sequence,
            "consent_type": self.consent_type,
            "kind": self.kind,
            "status": self.status,
            "legal_basis": self.legal_basis,
            "capture_method": self.capture_method,
            "terms_version": self.terms_version,
            "terms_hash": self.terms_hash,
            "witness": self.witness,
            "occurred_at": iso(self.occurred_at),
            "recorded_at": iso(self.recorded_at),
            "valid_until": iso(self.valid_until) if self.valid_until else None,
            "supersedes": str(self.supersedes_id) if self.supersedes_id else None,
        }


class ConsentLedgerHead(models.Model):
    """How far a member's ledger was last checked, and whether it failed: the gates'
    fail-closed switch. Moved forward by every append and purge, under the member lock."""

    member = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="consent_ledger_head",
        editable=False,
    )
    sequence = models.PositiveIntegerField(editable=False)  # 0: an empty ledger
    event_id = models.CharField(max_length=36, blank=True, editable=False)
    hash = models.CharField(max_length=64, editable=False)
    checked_at = models.DateTimeField(editable=False)
    # Set once a check fails; every gate then acts as if nothing were consented.
    broken_at = models.DateTimeField(null=True, blank=True, editable=False)
    broken_event_id = models.CharField(max_length=36, blank=True, editable=False)
    broken_reason = models.CharField(max_length=32, blank=True, editable=False)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(broken_at__isnull=True, broken_reason="")
                | Q(broken_at__isnull=False) & ~Q(broken_reason=""),
                name="%(app_label)s_%(class)s_broken_has_reason",
                violation_error_message="A broken ledger names why.",
            ),
        ]

    def __str__(self) -> str:
        return f"ledger head #{self.sequence} of {self.member_id}"


class OptOutEvent(models.Model):
    """One append-only entry of a member's opt-out ledger: a category of memory scope
    turned off, or back on. The latest event per category is the member's state; memory's
    blueprints suppress every scope that lists an opted-out category, on write and read.

    Not purgeable: an opt-out protects the member, so an erasure never brings a
    category they turned off back on.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    member = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="opt_out_events",
        editable=False,
    )
    # Position in the member's opt-out ledger; strictly increasing.
    sequence = models.PositiveIntegerField(editable=False)
    category = models.CharField(max_length=32, choices=OptOutCategory, editable=False)
    kind = models.CharField(max_length=8, choices=OptOutEventKind, editable=False)
    # Who recorded it (the member themself) and how: "session" or "token:<id>".
    actor_id = models.UUIDField(null=True, editable=False)
    witness = models.CharField(max_length=96, editable=False)
    occurred_at = models.DateTimeField(editable=False)

    class Meta:
        ordering = ["member_id", "sequence"]
        indexes = [
            models.Index(
                fields=["member", "category", "-sequence"], name="consent_optout_member_cat_seq"
            ),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["member", "sequence"],
                name="%(app_label)s_%(class)s_unique_sequence",
                violation_error_message="The opt-out ledger already has an event here.",
            ),
            models.CheckConstraint(
                condition=Q(category__in=OptOutCategory.values),
                name="%(app_label)s_%(class)s_category_valid",
                violation_error_message="Unknown opt-out category.",
            ),
            models.CheckConstraint(
                condition=Q(kind__in=OptOutEventKind.values),
                name="%(app_label)s_%(class)s_kind_valid",
                violation_error_message="Unknown opt-out event kind.",
            ),
        ]
        triggers = append_only_triggers()

    def __str__(self) -> str:
        return f"{self.kind} {self.category} #{self.sequence}"

    def save(self, *args, **kwargs) -> None:
        if not self._state.adding:
            raise ValueError("opt-out events are append-only")
        super().save(*args, **kwargs)

    @property
    def opted_out(self) -> bool:
        return self.kind == OptOutEventKind.OPT_OUT
