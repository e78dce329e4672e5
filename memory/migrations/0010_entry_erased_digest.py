from importlib import import_module

from django.db import migrations, models

# SQLite adds a NOT NULL column by rebuilding the table, which drops the triggers on it:
# put back the one keeping the postings' prior in step (0006's).
PRIOR = import_module("memory.migrations.0006_entry_terms_prior")


def restore_prior_trigger(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        PRIOR._run(schema_editor, PRIOR.SQLITE_CREATE)


class Migration(migrations.Migration):
    dependencies = [
        ("memory", "0009_forgotten_facts_retired_handles"),
    ]

    operations = [
        migrations.AddField(
            model_name="memoryentry",
            name="erased_digest",
            field=models.CharField(blank=True, editable=False, max_length=64),
        ),
        migrations.RunPython(restore_prior_trigger, migrations.RunPython.noop),
    ]
