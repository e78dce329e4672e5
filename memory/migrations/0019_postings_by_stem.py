"""Postings keyed by (stem, entry), their counts in the key's index.

A recall reads a stem's postings; keyed by (entry, stem), with a separate (stem) index,
each of those reads visited one heap page per posting (a common stem's 8,000 postings
lie on some 3,000 pages at 100k entries). Keyed by (stem, entry) with the counts
INCLUDEd (PostgreSQL), a stem's postings are a few adjacent index pages read alone
(an index-only scan), and probing an entry's stem is the same key. Deleting an entry's
postings (re-index, erasure, cascades) takes the new (entry) index. Built at once, the
two indexes are no larger than the two they replace (372 against 380 bytes an entry at
100k); grown write by write, an index ordered by stem splits more pages and its tuples
are wider: about 105 bytes an entry more (`bench_recall --scale`).
"""

from django.db import migrations, models

_COUNTS = ("own_count", "context_count", "length", "context_length")


def _key(schema_editor, model, *, covering: bool) -> None:
    """Rebuild the table's primary key from ``model``'s key fields (the historical
    model beside the key's `AlterField`: after it going forward, before it going back)."""
    fields = [model._meta.get_field(name) for name in model._meta.pk.field_names]
    if schema_editor.connection.vendor != "postgresql":
        # SQLite keeps a composite key in the table definition: rebuild the table.
        schema_editor._remake_table(model)
        return
    quote = schema_editor.quote_name
    table = model._meta.db_table
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(
            "SELECT conname FROM pg_constraint WHERE conrelid = %s::regclass AND contype = 'p'",
            [table],
        )
        (name,) = cursor.fetchone()
    include = f" INCLUDE ({', '.join(quote(c) for c in _COUNTS)})" if covering else ""
    schema_editor.execute(
        f"ALTER TABLE {quote(table)} DROP CONSTRAINT {quote(name)}, ADD CONSTRAINT {quote(name)}"
        f" PRIMARY KEY ({', '.join(quote(f.column) for f in fields)}){include}"
    )


def key_by_stem(apps, schema_editor):
    _key(schema_editor, apps.get_model("memory", "MemoryEntryTerm"), covering=True)


def key_by_entry(apps, schema_editor):
    _key(schema_editor, apps.get_model("memory", "MemoryEntryTerm"), covering=False)


class Migration(migrations.Migration):
    dependencies = [
        ("memory", "0018_conflict_cluster_freshness"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="memoryentryterm",
            index=models.Index(fields=["entry"], name="memory_term_entry"),
        ),
        migrations.RunPython(migrations.RunPython.noop, key_by_entry, elidable=False),
        migrations.AlterField(
            model_name="memoryentryterm",
            name="pk",
            field=models.CompositePrimaryKey(
                "stem", "entry", blank=True, editable=False, primary_key=True, serialize=False
            ),
        ),
        migrations.RunPython(key_by_stem, migrations.RunPython.noop, elidable=False),
        migrations.RemoveIndex(
            model_name="memoryentryterm",
            name="memory_term_lookup",
        ),
    ]
