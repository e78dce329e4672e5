"""Every column of memory holding a member's words becomes sealed (`iris_site.keys.fields`).

The data is not changed here: a value written before is plain text (an entity label a
Fernet token under the application key), and it still reads as it is until
`manage.py keys_encrypt` seals it in place. New writes are sealed; the conflict key
becomes the member's keyed token of it (`memory.models.fields`).

On SQLite a column's type changes by rebuilding its table, which drops the triggers on
it: the append-only ones of revisions and turns are put back.
"""

from django.db import migrations

import iris_site.appendonly
import iris_site.keys.fields
import memory.models.fields


class Migration(migrations.Migration):
    dependencies = [
        ("memory", "0027_memory_member_suppressed_dropped"),
    ]

    operations = [
        migrations.AlterField(
            model_name="conversationturn",
            name="text",
            field=iris_site.keys.fields.SealedTextField(editable=False, max_length=8000),
        ),
        migrations.AlterField(
            model_name="memoryentity",
            name="label",
            field=iris_site.keys.fields.SealedTextField(blank=True),
        ),
        migrations.AlterField(
            model_name="memoryentry",
            name="body",
            field=iris_site.keys.fields.SealedTextField(max_length=4000),
        ),
        migrations.AlterField(
            model_name="memoryentry",
            name="conflict_key",
            field=memory.models.fields.ConflictKeyField(max_length=400),
        ),
        migrations.AlterField(
            model_name="memoryentry",
            name="relationship_note",
            field=iris_site.keys.fields.SealedTextField(blank=True, max_length=500),
        ),
        migrations.AlterField(
            model_name="memoryentry",
            name="subject",
            field=iris_site.keys.fields.SealedTextField(blank=True, max_length=200),
        ),
        migrations.AlterField(
            model_name="memoryentry",
            name="suppression_notes",
            field=iris_site.keys.fields.SealedTextField(blank=True, max_length=500),
        ),
        migrations.AlterField(
            model_name="memoryrelationship",
            name="note",
            field=iris_site.keys.fields.SealedTextField(blank=True, max_length=500),
        ),
        migrations.AlterField(
            model_name="memoryrevision",
            name="content",
            field=iris_site.keys.fields.SealedJSONField(editable=False),
        ),
        migrations.AlterField(
            model_name="recallrecord",
            name="rationales",
            field=iris_site.keys.fields.SealedJSONField(default=dict),
        ),
        iris_site.appendonly.SQLiteAppendOnly("memoryrevision"),
        iris_site.appendonly.SQLiteAppendOnly("conversationturn"),
    ]
