"""The audit chain's tables: the foundation layer every app writes through
(`iris_site.audit`)."""

import uuid

from django.db import models

from iris_site.appendonly import append_only_triggers
from iris_site.audit.enums import ActorType, Severity


class AuditEvent(models.Model):
    """One link of the episodic tier: an append-only, hash-chained audit record.

    Each member's events form their own chain (`chain_key` is the member's id; events
    that target no member form the `platform` chain), numbered by `chain_sequence` and
    linked by `previous_hash`. `sequence` orders events platform-wide; on PostgreSQL it
    comes from a database sequence, so appending never reads a global head.
    Payloads carry identifiers, enums and numbers only; never memory content.
    Target ids are plain UUIDs, not foreign keys, so the record outlives erasure.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    sequence = models.BigIntegerField(unique=True, editable=False)
    chain_key = models.CharField(max_length=36, editable=False)
    chain_sequence = models.BigIntegerField(editable=False)
    action = models.CharField(max_length=128, editable=False)
    policy_id = models.CharField(max_length=128, editable=False)
    severity = models.CharField(max_length=16, choices=Severity, editable=False)
    actor_type = models.CharField(max_length=16, choices=ActorType, editable=False)
    actor_id = models.UUIDField(null=True, blank=True, editable=False)
    # The operator role or consumer name at the time: survives later role changes.
    actor_role = models.CharField(max_length=32, blank=True, editable=False)
    target_member_id = models.UUIDField(null=True, blank=True, editable=False)
    target_tenant_id = models.UUIDField(null=True, blank=True, editable=False)
    payload = models.JSONField(default=dict, editable=False)
    occurred_at = models.DateTimeField(editable=False)
    previous_hash = models.CharField(max_length=64, editable=False)
    hash = models.CharField(max_length=64, unique=True, editable=False)

    class Meta:
        # The table (and the constraints' names) predate the chain's move to this
        # foundation layer from `hierarchy`.
        db_table = "hierarchy_auditevent"
        ordering = ["-sequence"]
        indexes = [
            models.Index(fields=["target_member_id", "-occurred_at"], name="audit_member_time"),
            models.Index(fields=["target_tenant_id", "-occurred_at"], name="audit_tenant_time"),
            models.Index(fields=["action", "-occurred_at"], name="audit_action_time"),
            models.Index(fields=["-occurred_at"], name="audit_time"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["chain_key", "chain_sequence"], name="audit_chain_position"
            ),
            models.CheckConstraint(
                condition=models.Q(severity__in=Severity.values),
                name="hierarchy_auditevent_severity_valid",
                violation_error_message="Unknown severity.",
            ),
            models.CheckConstraint(
                condition=models.Q(actor_type__in=ActorType.values),
                name="hierarchy_auditevent_actor_type_valid",
                violation_error_message="Unknown actor type.",
            ),
        ]
        triggers = append_only_triggers()

    def __str__(self) -> str:
        return f"#{self.sequence} {self.action}"

    def save(self, *args, **kwargs) -> None:
        if not self._state.adding:
            raise ValueError("audit events are append-only")
        super().save(*args, **kwargs)


class AuditCheckpoint(models.Model):
    """A signed seal over every audit chain's head (`iris_site.audit.checkpoint`).

    The signed statement also goes to a sink outside the database; that copy is the one
    `audit_verify` trusts (a renewed database with nothing sealed since is checked against
    the checkpoint it inherited, by the signature this row keeps). This row keeps the
    heads the Merkle root was computed over (`[chain, chain_sequence, event_id, hash]`,
    sorted by chain), so verification and a member's inclusion proof need no second copy
    of them; the signed root vouches for them.
    """

    number = models.BigIntegerField(unique=True, editable=False)
    sealed_at = models.DateTimeField(editable=False)
    previous = models.CharField(max_length=64, editable=False)
    root = models.CharField(max_length=64, editable=False)
    tree_size = models.BigIntegerField(editable=False)
    key_id = models.CharField(max_length=16, editable=False)
    signature = models.CharField(max_length=88, editable=False)
    heads = models.JSONField(default=list, editable=False)
    # The database's deployment id (`Deployment`) the statement names; null for a
    # checkpoint sealed before there were any (a version 1 statement, naming none).
    deployment = models.UUIDField(null=True, editable=False)

    class Meta:
        db_table = "hierarchy_auditcheckpoint"
        ordering = ["-number"]
        triggers = append_only_triggers()

    def __str__(self) -> str:
        return f"checkpoint {self.number}"


class AuditMemberKey(models.Model):
    """A member's key for the special-category values in their audit events.

    A payload never holds a sensitive category or consent type in the clear: it holds a
    keyed digest under this key (`iris_site.audit.sealing`). Listing shows a neutral
    marker, and only a listing inside a granted inspection or a data-rights task covering
    the member resolves it. Erasing the member destroys this key: the chain still verifies
    (the digests it hashed are unchanged), but nothing can tell which category they were.
    """

    member_id = models.UUIDField(primary_key=True, editable=False)
    key = models.BinaryField(editable=False)
    created_at = models.DateTimeField(editable=False)

    def __str__(self) -> str:
        return f"audit key of {self.member_id}"
