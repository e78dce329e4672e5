"""Relationships keep two clocks: when they were true (valid time) and when Iris learned
them (learned time). Until now a relationship's `valid_from`/`valid_to` were the times
Iris learned it and learned of its end, so every existing row keeps them as both: its
learned time is its valid time, with no precision (the member said no time), and each row
is its own period."""

import uuid

from django.db import migrations, models
from django.db.models import F


def learned_is_valid(apps, schema_editor):
    rows = apps.get_model("memory", "MemoryRelationship").objects
    rows.update(learned_at=F("valid_from"), end_learned_at=F("valid_to"), period_id=F("id"))


class Migration(migrations.Migration):
    dependencies = [("memory", "0029_notice_promotion")]

    operations = [
        migrations.AddField(
            model_name="memoryrelationship",
            name="learned_at",
            field=models.DateTimeField(null=True),
        ),
        migrations.AddField(
            model_name="memoryrelationship",
            name="end_learned_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="memoryrelationship",
            name="period_id",
            field=models.UUIDField(null=True),
        ),
        migrations.AddField(
            model_name="memoryrelationship",
            name="valid_from_precision",
            field=models.CharField(blank=True, default="", max_length=8),
        ),
        migrations.AddField(
            model_name="memoryrelationship",
            name="valid_to_precision",
            field=models.CharField(blank=True, default="", max_length=8),
        ),
        migrations.RunPython(learned_is_valid, migrations.RunPython.noop, elidable=False),
        migrations.AlterField(
            model_name="memoryrelationship",
            name="learned_at",
            field=models.DateTimeField(),
        ),
        migrations.AlterField(
            model_name="memoryrelationship",
            name="period_id",
            field=models.UUIDField(default=uuid.uuid4),
        ),
        migrations.AlterField(
            model_name="memoryrelationship",
            name="valid_from",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddIndex(
            model_name="memoryrelationship",
            index=models.Index(fields=["period_id"], name="memory_rel_period"),
        ),
    ]
