"""Which database this is, for the signed audit checkpoints (`iris_site.audit.checkpoint`)."""

import uuid

from django.db import models

from iris_site.appendonly import append_only_triggers


class Deployment(models.Model):
    """A random id naming this database in every checkpoint it seals.

    Made by migration (iris_site 0008, for a database migrated before it too), or by the
    first seal of a database emptied since; a restored copy served beside its original is
    given a new one by `manage.py audit_deployment --new`. The newest row is the database's
    id; rows are only ever added, so the ids a database had stay on record.
    """

    deployment_id = models.UUIDField(unique=True, default=uuid.uuid4, editable=False)
    created_at = models.DateTimeField(editable=False)
    # Given by `audit_deployment --new`: the last checkpoint the database held then, which
    # its new sink carries on from (None: the sink starts at checkpoint 1).
    inherited = models.BigIntegerField(null=True, editable=False)

    class Meta:
        db_table = "iris_site_deployment"
        ordering = ["-id"]
        triggers = append_only_triggers()

    def __str__(self) -> str:
        return f"deployment {self.deployment_id}"
