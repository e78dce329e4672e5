import django.utils.timezone
from django.db import migrations, models

TRIGGER = "memory_entry_term_prior"

# Keep each posting's copy of the entry's ranking prior in step with the entry. Every
# write of the counters (a recall's usage update included) goes through UPDATE.
POSTGRES_CREATE = [
    f"""
    CREATE OR REPLACE FUNCTION {TRIGGER}() RETURNS trigger AS $$
    BEGIN
        UPDATE memory_memoryentryterm
           SET reference_count = NEW.reference_count,
               anchor = COALESCE(NEW.last_referenced_at, NEW.updated_at),
               origin = NEW.origin
         WHERE entry_id = NEW.id;
        RETURN NULL;
    END
    $$ LANGUAGE plpgsql
    """,
    f"""
    CREATE TRIGGER {TRIGGER}
    AFTER UPDATE OF reference_count, last_referenced_at, updated_at, origin
    ON memory_memoryentry
    FOR EACH ROW
    WHEN (OLD.reference_count IS DISTINCT FROM NEW.reference_count
          OR OLD.last_referenced_at IS DISTINCT FROM NEW.last_referenced_at
          OR OLD.updated_at IS DISTINCT FROM NEW.updated_at
          OR OLD.origin IS DISTINCT FROM NEW.origin)
    EXECUTE FUNCTION {TRIGGER}()
    """,
]
POSTGRES_DROP = [
    f"DROP TRIGGER IF EXISTS {TRIGGER} ON memory_memoryentry",
    f"DROP FUNCTION IF EXISTS {TRIGGER}()",
]
SQLITE_CREATE = [
    f"""
    CREATE TRIGGER IF NOT EXISTS {TRIGGER}
    AFTER UPDATE OF reference_count, last_referenced_at, updated_at, origin
    ON memory_memoryentry
    FOR EACH ROW
    WHEN OLD.reference_count IS NOT NEW.reference_count
      OR OLD.last_referenced_at IS NOT NEW.last_referenced_at
      OR OLD.updated_at IS NOT NEW.updated_at
      OR OLD.origin IS NOT NEW.origin
    BEGIN
        UPDATE memory_memoryentryterm
           SET reference_count = NEW.reference_count,
               anchor = COALESCE(NEW.last_referenced_at, NEW.updated_at),
               origin = NEW.origin
         WHERE entry_id = NEW.id;
    END
    """,
]
SQLITE_DROP = [f"DROP TRIGGER IF EXISTS {TRIGGER}"]

BACKFILL = """
UPDATE memory_memoryentryterm
   SET reference_count = (SELECT e.reference_count FROM memory_memoryentry e
                           WHERE e.id = memory_memoryentryterm.entry_id),
       anchor = (SELECT COALESCE(e.last_referenced_at, e.updated_at) FROM memory_memoryentry e
                  WHERE e.id = memory_memoryentryterm.entry_id),
       origin = (SELECT e.origin FROM memory_memoryentry e
                  WHERE e.id = memory_memoryentryterm.entry_id)
"""


def _run(schema_editor, statements) -> None:
    for statement in statements:
        schema_editor.execute(statement)


def forwards(apps, schema_editor):
    _run(schema_editor, [BACKFILL])
    vendor = schema_editor.connection.vendor
    _run(schema_editor, POSTGRES_CREATE if vendor == "postgresql" else SQLITE_CREATE)


def backwards(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    _run(schema_editor, POSTGRES_DROP if vendor == "postgresql" else SQLITE_DROP)


class Migration(migrations.Migration):

    dependencies = [
        ("memory", "0005_recall_prior_index"),
    ]

    operations = [
        migrations.AddField(
            model_name="memoryentryterm",
            name="reference_count",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="memoryentryterm",
            name="anchor",
            field=models.DateTimeField(default=django.utils.timezone.now),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="memoryentryterm",
            name="origin",
            field=models.CharField(default="", max_length=32),
            preserve_default=False,
        ),
        migrations.RemoveIndex(
            model_name="memoryentryterm",
            name="memory_term_lookup",
        ),
        migrations.AddIndex(
            model_name="memoryentryterm",
            index=models.Index(
                fields=[
                    "member_id",
                    "stem",
                    "entry",
                    "own_count",
                    "context_count",
                    "length",
                    "context_length",
                    "reference_count",
                    "anchor",
                    "origin",
                ],
                name="memory_term_lookup",
            ),
        ),
        migrations.RunPython(forwards, backwards),
    ]
