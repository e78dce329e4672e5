import uuid

from django.conf import settings
from django.db import models
from django.db.models import F, Q

from inspection.enums import InspectionState, NoticeState, ReasonCode
from inspection.policy import ENTRY_PATHS, FOUR_EYES_PATHS
from iris_site.appendonly import append_only_triggers
from iris_site.audit.enums import ActorType
from iris_site.enums import OperatorRole
from memory.enums import MemoryCategory, ScopeKind

_S = InspectionState
_DECIDED = [_S.GRANTED, _S.DENIED, _S.CLOSED]


class InspectionRequest(models.Model):
    """An operator's request to look at one member's memory in one scope, and its path.

    The row moves only through `inspection.services.inspection_transition`; every move is
    also an append-only `InspectionEvent` and an episodic audit event. The justification
    stays here and never enters an audit payload.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    operator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", editable=False
    )
    # Role and tenant binding when the request was opened: the gate refuses if they change.
    operator_role = models.CharField(max_length=16, choices=OperatorRole, editable=False)
    operator_tenant_id = models.UUIDField(null=True, blank=True, editable=False)
    member = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="inspections",
        editable=False,
    )
    # The tenant whose memory is inspected (a `tenant` scope), else null.
    target_tenant_id = models.UUIDField(null=True, blank=True, editable=False)
    # A memory scope key, as validated by `memory.contracts.SCOPE_KEY_ADAPTER`.
    scope = models.JSONField(editable=False)
    scope_kind = models.CharField(max_length=24, choices=ScopeKind, editable=False)
    scope_key = models.CharField(max_length=400, editable=False)
    # Whether the request covers sensitive categories (and sensitive multi-actor mentions).
    include_sensitive = models.BooleanField(default=False, editable=False)
    state = models.CharField(max_length=24, choices=InspectionState, default=_S.REQUESTED)
    # The entry path taken ("" until routed); kept after the request moves on.
    path = models.CharField(
        max_length=24, blank=True, choices=[(p, InspectionState(p).label) for p in ENTRY_PATHS]
    )
    justification = models.TextField(max_length=2000, editable=False)
    signed_incident_ref = models.CharField(max_length=128, blank=True)
    # The member's open data-rights request a DSAR fulfilment serves (no foreign key:
    # data rights sits beside inspection; checked through `iris_site.hooks` when routed
    # and again at the grant). No constraint: requests routed before it existed lack it.
    dsar_request_id = models.UUIDField(null=True, blank=True)
    # Who made the grant: on a four-eyes request a second operator, never the requester.
    granted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        editable=False,
    )
    reason_code = models.CharField(max_length=32, choices=ReasonCode, blank=True)
    # The member's latest consent-ledger event when the gate ran (their consent snapshot).
    consent_snapshot_event_id = models.UUIDField(null=True, blank=True)
    # SHA-256 over the pinned (entry, revision, content) triples; replay recomputes it.
    snapshot_fingerprint = models.CharField(max_length=64, blank=True)
    # Recorded on the incident path: no member notice at close (an ongoing investigation).
    investigation_carveout = models.BooleanField(default=False)
    created_at = models.DateTimeField(editable=False)
    decide_by = models.DateTimeField(editable=False)
    granted_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    closed_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField()

    class Meta:
        ordering = ["-created_at", "id"]
        indexes = [
            models.Index(fields=["operator", "-created_at"], name="inspection_operator_time"),
            models.Index(fields=["member", "-created_at"], name="inspection_member_time"),
            models.Index(
                fields=["decide_by"],
                name="inspection_undecided",
                condition=Q(state__in=[_S.REQUESTED, *ENTRY_PATHS]),
            ),
            models.Index(
                fields=["expires_at"], name="inspection_granted", condition=Q(state=_S.GRANTED)
            ),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(state__in=_S.values),
                name="%(app_label)s_%(class)s_state_valid",
                violation_error_message="Unknown inspection state.",
            ),
            models.CheckConstraint(
                condition=(Q(state=_S.REQUESTED) & Q(path=""))
                | (Q(state__in=ENTRY_PATHS) & Q(path=F("state")))
                | (Q(state__in=_DECIDED) & Q(path__in=ENTRY_PATHS)),
                name="%(app_label)s_%(class)s_path_follows_state",
                violation_error_message="The path is the entry path the request went through.",
            ),
            models.CheckConstraint(
                condition=~Q(state__in=[_S.GRANTED, _S.CLOSED])
                | (Q(granted_at__isnull=False) & Q(expires_at__isnull=False)),
                name="%(app_label)s_%(class)s_grant_is_time_boxed",
                violation_error_message="A grant records when it started and when it ends.",
            ),
            models.CheckConstraint(
                condition=~Q(state=_S.CLOSED) | Q(closed_at__isnull=False),
                name="%(app_label)s_%(class)s_closed_has_time",
                violation_error_message="A closed inspection records when it closed.",
            ),
            models.CheckConstraint(
                condition=~Q(state=_S.DENIED) | ~Q(reason_code=""),
                name="%(app_label)s_%(class)s_denial_has_reason",
                violation_error_message="A denial names its reason code.",
            ),
            models.CheckConstraint(
                condition=~(Q(include_sensitive=True) | Q(path__in=sorted(FOUR_EYES_PATHS)))
                | Q(granted_by__isnull=True)
                | ~Q(granted_by=F("operator")),
                name="%(app_label)s_%(class)s_four_eyes",
                violation_error_message="A sensitive grant is never made by its requester.",
            ),
            models.CheckConstraint(
                condition=Q(investigation_carveout=False) | Q(path=_S.INCIDENT_ESCALATION),
                name="%(app_label)s_%(class)s_carveout_only_for_incidents",
                violation_error_message="Only an incident escalation can carve out the notice.",
            ),
        ]

    def __str__(self) -> str:
        return f"inspection {self.id} ({self.state})"


class InspectionEvent(models.Model):
    """One append-only step of an inspection: who moved it from where to where, and why."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    inspection = models.ForeignKey(
        InspectionRequest, on_delete=models.PROTECT, related_name="events", editable=False
    )
    # Denormalized owner: every query on member data filters by it.
    member_id = models.UUIDField(editable=False)
    sequence = models.PositiveIntegerField(editable=False)
    # "" for the opening event.
    from_state = models.CharField(max_length=24, blank=True, editable=False)
    to_state = models.CharField(max_length=24, choices=InspectionState, editable=False)
    reason_code = models.CharField(max_length=32, blank=True, editable=False)
    actor_type = models.CharField(max_length=16, choices=ActorType, editable=False)
    actor_id = models.UUIDField(null=True, blank=True, editable=False)
    actor_role = models.CharField(max_length=32, blank=True, editable=False)
    # How many (entry, revision) pairs the grant pinned; null on every other step.
    seen_count = models.PositiveIntegerField(null=True, blank=True, editable=False)
    # The episodic chain's record of this step.
    audit_event_id = models.UUIDField(editable=False)
    occurred_at = models.DateTimeField(editable=False)

    class Meta:
        ordering = ["inspection", "sequence"]
        constraints = [
            models.UniqueConstraint(
                fields=["inspection", "sequence"],
                name="%(app_label)s_%(class)s_unique_sequence",
                violation_error_message="The inspection already has a step at this position.",
            ),
        ]
        triggers = append_only_triggers()

    def __str__(self) -> str:
        return f"{self.from_state or '∅'} → {self.to_state}"

    def save(self, *args, **kwargs) -> None:
        if not self._state.adding:
            raise ValueError("inspection events are append-only")
        super().save(*args, **kwargs)


class InspectionSnapshotItem(models.Model):
    """One (entry, revision) pair a grant let the operator see: ids and labels, no content.

    No foreign keys into memory: a data-rights hard delete may purge the revision, and
    replay then reports the pair as purged (erasure wins) while this record of it stays.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    inspection = models.ForeignKey(
        InspectionRequest, on_delete=models.PROTECT, related_name="snapshot_items", editable=False
    )
    member_id = models.UUIDField(editable=False)
    position = models.PositiveIntegerField(editable=False)
    entry_id = models.UUIDField(editable=False)
    revision_id = models.UUIDField(editable=False)
    category = models.CharField(max_length=32, choices=MemoryCategory, editable=False)
    sensitive = models.BooleanField(editable=False)

    class Meta:
        ordering = ["inspection", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["inspection", "entry_id"],
                name="%(app_label)s_%(class)s_unique_entry",
                violation_error_message="An entry is pinned once per inspection.",
            ),
        ]
        triggers = append_only_triggers()

    def __str__(self) -> str:
        return f"{self.entry_id}@{self.revision_id}"

    def save(self, *args, **kwargs) -> None:
        if not self._state.adding:
            raise ValueError("snapshot items are append-only")
        super().save(*args, **kwargs)


class InspectionNotice(models.Model):
    """The member's notice that an operator read their sensitive memory (one per inspection)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    inspection = models.OneToOneField(
        InspectionRequest, on_delete=models.PROTECT, related_name="notice", editable=False
    )
    member = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="inspection_notices",
        editable=False,
    )
    state = models.CharField(max_length=16, choices=NoticeState, default=NoticeState.PENDING)
    queued_at = models.DateTimeField(editable=False)
    # The compliance deadline: queued_at + the notice window (72 h by default).
    due_at = models.DateTimeField(editable=False)
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-queued_at", "id"]
        indexes = [
            models.Index(fields=["member", "state", "-queued_at"], name="inspection_notice_member"),
            models.Index(
                fields=["due_at"],
                name="inspection_notice_pending",
                condition=Q(state=NoticeState.PENDING),
            ),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(state__in=NoticeState.values),
                name="%(app_label)s_%(class)s_state_valid",
                violation_error_message="Unknown notice state.",
            ),
            models.CheckConstraint(
                condition=(Q(state=NoticeState.PENDING) & Q(delivered_at__isnull=True))
                | (Q(state=NoticeState.DELIVERED) & Q(delivered_at__isnull=False)),
                name="%(app_label)s_%(class)s_delivery_time",
                violation_error_message="A delivered notice records when; a pending one not.",
            ),
            models.CheckConstraint(
                condition=Q(due_at__gt=F("queued_at")),
                name="%(app_label)s_%(class)s_due_after_queued",
                violation_error_message="A notice falls due after it is queued.",
            ),
        ]

    def __str__(self) -> str:
        return f"inspection notice {self.id} ({self.state})"
