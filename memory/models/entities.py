"""Who and what long-term memories are about: entities, the entries linked to them, and
the relationships between them with the interval in which each held.

An entity is found again by `digest`, a keyed digest (`iris_site.crypto.keyed_digest`,
member-namespaced) of its normalised handle or subject, never by its name. A person's
member-visible label is sealed under the member's data key (`iris_site.keys.fields`), so
erasing the member's keys makes it unreadable in every copy of the database; it is
erased when the person is retired, and the digest stays so a later mention does not bring
them back by itself (`memory.entities.services`). A relationship's note is sealed alike.
"""

import uuid

from django.conf import settings
from django.db import models
from django.db.models import F, Q

from iris_site.keys.fields import SealedTextField
from memory.enums import EntityKind, EntityState


class MemoryEntity(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    member = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="memory_entities"
    )
    kind = models.CharField(max_length=16, choices=EntityKind)
    state = models.CharField(max_length=16, choices=EntityState, default=EntityState.ACTIVE)
    digest = models.CharField(max_length=64)
    # A person's (or subject's) member-visible name, sealed; "" once retired. A label
    # written before sealing is a Fernet token under the application key until
    # `keys_encrypt` seals it (`memory.entities.derive.entity_label` reads both).
    label = SealedTextField(blank=True)
    created_at = models.DateTimeField()
    state_changed_at = models.DateTimeField()

    class Meta:
        verbose_name_plural = "memory entities"
        ordering = ["kind", "created_at", "id"]
        indexes = [models.Index(fields=["member", "state", "kind"], name="memory_entity_state")]
        constraints = [
            models.UniqueConstraint(
                fields=["member", "kind", "digest"],
                name="%(app_label)s_%(class)s_one_per_digest",
                violation_error_message="This entity already exists.",
            ),
            models.CheckConstraint(
                condition=Q(kind__in=EntityKind.values),
                name="%(app_label)s_%(class)s_kind_valid",
                violation_error_message="Unknown entity kind.",
            ),
            models.CheckConstraint(
                condition=Q(state__in=EntityState.values),
                name="%(app_label)s_%(class)s_state_valid",
                violation_error_message="Unknown entity state.",
            ),
            models.CheckConstraint(
                condition=~Q(state=EntityState.RETIRED) | Q(label=""),
                name="%(app_label)s_%(class)s_retired_unlabelled",
                violation_error_message="A retired entity keeps no label.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} entity {self.id}"


class MemoryEntryEntity(models.Model):
    """One long-term entry is about one entity."""

    entry = models.ForeignKey(
        "memory.MemoryEntry", on_delete=models.CASCADE, related_name="entity_links"
    )
    entity = models.ForeignKey(MemoryEntity, on_delete=models.CASCADE, related_name="entry_links")
    # Denormalized owner: every query on member data filters by it.
    member_id = models.UUIDField()
    created_at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["member_id", "entity"], name="memory_entity_link")]
        constraints = [
            models.UniqueConstraint(
                fields=["entry", "entity"],
                name="%(app_label)s_%(class)s_once",
                violation_error_message="The entry is already linked to this entity.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.entry_id} about {self.entity_id}"


class MemoryRelationship(models.Model):
    """A relationship between two of the member's entities, with two clocks.

    Valid time, when it was TRUE in the member's world: from `valid_from` until `valid_to`
    (open while it holds), as the member said it ("since 2019", "we broke up in March":
    `memory.entities.when`), each with the precision they said it to ("year", "month",
    "day"; "" when they said nothing, and Iris's own learned time stands in). Learned
    time, when IRIS HEARD it: `learned_at`, and `end_learned_at` for its end. Recall
    `as_of` answers by valid time; the learned times are kept for audit.

    One row is one statement of a period: a restatement of the same relationship (same
    ends and type) joins its period (`period_id`, whose times every row of it shares)
    instead of opening a second one. Superseding the fact that carried it, with nothing
    restating it, ends the period when Iris learned so."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    member = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="memory_relationships"
    )
    from_entity = models.ForeignKey(
        MemoryEntity, on_delete=models.CASCADE, related_name="relationships_out"
    )
    to_entity = models.ForeignKey(
        MemoryEntity, on_delete=models.CASCADE, related_name="relationships_in"
    )
    # The entry that stated it; null once that entry is erased for good.
    source_entry = models.ForeignKey(
        "memory.MemoryEntry",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="relationships",
    )
    # "sister", "colleague" …, or "about" for person ↔ subject; "" when unknown.
    type = models.CharField(max_length=40, blank=True)
    note = SealedTextField(max_length=500, blank=True)
    state = models.CharField(max_length=16, choices=EntityState, default=EntityState.ACTIVE)
    # When it began to be true: the member's stated start, else when Iris learned it (it
    # held at least since); null when the member told only of its end.
    valid_from = models.DateTimeField(null=True, blank=True)
    valid_from_precision = models.CharField(max_length=8, blank=True, default="")
    valid_to = models.DateTimeField(null=True, blank=True)
    valid_to_precision = models.CharField(max_length=8, blank=True, default="")
    learned_at = models.DateTimeField()
    end_learned_at = models.DateTimeField(null=True, blank=True)
    period_id = models.UUIDField(default=uuid.uuid4)
    decay_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["valid_from", "id"]
        indexes = [
            models.Index(fields=["member", "from_entity"], name="memory_rel_from"),
            models.Index(fields=["member", "to_entity"], name="memory_rel_to"),
            models.Index(fields=["period_id"], name="memory_rel_period"),
            models.Index(
                fields=["decay_at"], name="memory_rel_decay", condition=Q(decay_at__isnull=False)
            ),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(valid_to__isnull=True) | Q(valid_to__gte=F("valid_from")),
                name="%(app_label)s_%(class)s_interval_ordered",
                violation_error_message="A relationship cannot end before it starts.",
            ),
            models.CheckConstraint(
                condition=Q(state__in=EntityState.values),
                name="%(app_label)s_%(class)s_state_valid",
                violation_error_message="Unknown relationship state.",
            ),
            models.CheckConstraint(
                condition=~Q(from_entity=F("to_entity")),
                name="%(app_label)s_%(class)s_two_entities",
                violation_error_message="A relationship joins two entities.",
            ),
        ]

    def __str__(self) -> str:
        return f"relationship {self.id}"
