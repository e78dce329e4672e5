"""Recall's index in rows a write touches only for its own stems.

The per-member JSON corpus statistics (rewritten whole by every write) become a
vocabulary with per-stem document frequencies (`MemoryStem`) and a few sharded counter
rows (`MemoryCorpusShard`); the postings (`MemoryEntryTerm`) shrink to an entry, a stem
row and four small counts (the ranking prior is read from the entry, so the trigger that
copied it into every posting goes); and `MemoryContextAnchor` records where each entry's
neighbour context comes from. Everything is rebuilt from the entries' stored term
statistics and provenance, which the old tables were derived from.
"""

import hashlib
import uuid
from collections import Counter

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

KEY_LENGTH = 64
SHARDS = 8
WINDOW = 2
TRIGGER = "memory_entry_term_prior"


def stem_key(stem):
    if len(stem) <= KEY_LENGTH:
        return stem
    return stem[:32] + hashlib.sha256(stem.encode()).hexdigest()[:32]


def _turn_context(Turn, alias, member_id, anchors):
    """Texts of the stored turns within the window of the anchors, anchors excluded."""
    texts = []
    cited = {(s, q) for s, q in anchors}
    wanted = set()
    for session, sequence in anchors:
        for position in range(max(1, sequence - WINDOW), sequence + WINDOW + 1):
            if (session, position) not in cited:
                wanted.add((session, position))
    for session in sorted({s for s, _ in wanted}):
        positions = sorted(q for s, q in wanted if s == session)
        texts += list(
            Turn.objects.using(alias)
            .filter(member_id=member_id, session_id=session, sequence__in=positions)
            .order_by("sequence")
            .values_list("text", flat=True)
        )
    return texts


def rebuild(apps, schema_editor):
    from memory.recall.rankers import analyze

    alias = schema_editor.connection.alias
    Entry = apps.get_model("memory", "MemoryEntry")
    Turn = apps.get_model("memory", "ConversationTurn")
    Stem = apps.get_model("memory", "MemoryStem")
    Shard = apps.get_model("memory", "MemoryCorpusShard")
    Term = apps.get_model("memory", "MemoryEntryTerm")
    Anchor = apps.get_model("memory", "MemoryContextAnchor")
    members = (
        Entry.objects.using(alias)
        .exclude(lifecycle="tombstoned")
        .values_list("member_id", flat=True)
    )
    for member_id in sorted(set(members), key=str):
        frequency, shards, postings, anchors = Counter(), {}, [], []
        vocabulary = {}
        rows = (
            Entry.objects.using(alias)
            .filter(member_id=member_id)
            .exclude(lifecycle="tombstoned")
            .order_by("id")
        )
        for entry in rows.iterator(2000):
            stats = entry.term_stats
            if not stats:
                continue
            refs = []
            for link in entry.provenance_chain or ():
                if link.get("kind") == "session-turn":
                    try:
                        refs.append(uuid.UUID(str(link.get("ref"))))
                    except ValueError:
                        continue
            cited = list(
                Turn.objects.using(alias)
                .filter(member_id=member_id, pk__in=refs)
                .values_list("session_id", "sequence")
            )
            if cited:
                context = Counter()
                for text in _turn_context(Turn, alias, member_id, cited):
                    context.update(analyze(text))
                stats = {
                    **stats,
                    "context_terms": dict(sorted(context.items())),
                    "context_length": sum(context.values()),
                }
                entry.term_stats = stats
                entry.save(update_fields=["term_stats"])
                anchors += [
                    Anchor(member_id=member_id, session_id=s, sequence=q, entry_id=entry.pk)
                    for s, q in sorted(set(cited))
                ]
            own, ctx = stats.get("terms", {}), stats.get("context_terms", {})
            shard = shards.setdefault(entry.pk.int % SHARDS, [0, 0, 0])
            shard[0] += 1
            shard[1] += int(stats.get("length", 0))
            shard[2] += int(stats.get("context_length", 0))
            frequency.update(stem_key(s) for s in own)
            counts = {}
            for stem, n in own.items():
                counts.setdefault(stem_key(stem), [0, 0])[0] += n
            for stem, n in ctx.items():
                counts.setdefault(stem_key(stem), [0, 0])[1] += n
            vocabulary.update({stem_key(t): t for t in (*own, *ctx)})
            postings.append((entry.pk, stats, counts))
        if not postings:
            continue
        stems = Stem.objects.using(alias).bulk_create(
            Stem(
                member_id=member_id,
                key=key,
                long_stem=vocabulary[key] if vocabulary[key] != key else "",
                document_frequency=frequency[key],
            )
            for key in sorted(vocabulary)
        )
        ids = {stem.key: stem.pk for stem in stems}
        if any(i is None for i in ids.values()):  # a backend that returns no ids
            ids = dict(
                Stem.objects.using(alias).filter(member_id=member_id).values_list("key", "id")
            )
        Shard.objects.using(alias).bulk_create(
            Shard(
                member_id=member_id,
                shard=number,
                document_count=c,
                total_length=length,
                total_context_length=context,
            )
            for number, (c, length, context) in sorted(shards.items())
        )
        Term.objects.using(alias).bulk_create(
            (
                Term(
                    entry_id=entry_id,
                    stem_id=ids[key],
                    own_count=own,
                    context_count=context,
                    length=int(stats.get("length", 0)),
                    context_length=int(stats.get("context_length", 0)),
                )
                for entry_id, stats, counts in postings
                for key, (own, context) in sorted(counts.items())
            ),
            batch_size=5000,
        )
        Anchor.objects.using(alias).bulk_create(anchors, batch_size=5000)


def rebuild_corpus_json(apps, schema_editor):
    """Backwards: the per-member JSON statistics from the entries' term statistics."""
    alias = schema_editor.connection.alias
    Entry = apps.get_model("memory", "MemoryEntry")
    Stats = apps.get_model("memory", "MemoryCorpusStats")
    corpus = {}
    rows = Entry.objects.using(alias).exclude(lifecycle="tombstoned")
    for member_id, stats in rows.values_list("member_id", "term_stats").iterator(2000):
        if not stats:
            continue
        c = corpus.setdefault(
            member_id,
            {"document_count": 0, "total_length": 0, "total_context_length": 0, "df": Counter()},
        )
        c["document_count"] += 1
        c["total_length"] += int(stats.get("length", 0))
        c["total_context_length"] += int(stats.get("context_length", 0))
        c["df"].update(stats.get("terms", {}).keys())
    Stats.objects.using(alias).bulk_create(
        Stats(
            member_id=member_id,
            stats={
                "document_count": c["document_count"],
                "total_length": c["total_length"],
                "total_context_length": c["total_context_length"],
                "document_frequency": dict(sorted(c["df"].items())),
            },
        )
        for member_id, c in corpus.items()
    )


def drop_prior_trigger(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {TRIGGER} ON memory_memoryentry")
        schema_editor.execute(f"DROP FUNCTION IF EXISTS {TRIGGER}()")
    else:
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {TRIGGER}")


class Migration(migrations.Migration):
    dependencies = [
        ("memory", "0014_entities_relationships"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        # The postings no longer copy the entry's prior: nothing to keep in step.
        migrations.RunPython(drop_prior_trigger, migrations.RunPython.noop, elidable=True),
        migrations.DeleteModel(name="MemoryEntryTerm"),
        migrations.CreateModel(
            name="MemoryStem",
            fields=[
                ("id", models.BigAutoField(primary_key=True, serialize=False)),
                ("key", models.CharField(max_length=64)),
                ("long_stem", models.TextField(blank=True, default="")),
                ("document_frequency", models.PositiveIntegerField(default=0)),
                (
                    "member",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(
                        fields=("member", "key"),
                        name="memory_memorystem_unique_key",
                        violation_error_message="The member's vocabulary already holds this stem.",
                    )
                ],
            },
        ),
        migrations.CreateModel(
            name="MemoryCorpusShard",
            fields=[
                (
                    "pk",
                    models.CompositePrimaryKey(
                        "member",
                        "shard",
                        blank=True,
                        editable=False,
                        primary_key=True,
                        serialize=False,
                    ),
                ),
                ("shard", models.PositiveSmallIntegerField()),
                ("document_count", models.IntegerField(default=0)),
                ("total_length", models.BigIntegerField(default=0)),
                ("total_context_length", models.BigIntegerField(default=0)),
                (
                    "member",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
        ),
        migrations.CreateModel(
            name="MemoryEntryTerm",
            fields=[
                (
                    "pk",
                    models.CompositePrimaryKey(
                        "entry",
                        "stem",
                        blank=True,
                        editable=False,
                        primary_key=True,
                        serialize=False,
                    ),
                ),
                ("own_count", models.PositiveSmallIntegerField(default=0)),
                ("context_count", models.PositiveSmallIntegerField(default=0)),
                ("length", models.PositiveSmallIntegerField(default=0)),
                ("context_length", models.PositiveSmallIntegerField(default=0)),
                (
                    "entry",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="memory.memoryentry",
                    ),
                ),
                (
                    "stem",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="memory.memorystem",
                    ),
                ),
            ],
            options={
                "indexes": [models.Index(fields=["stem"], name="memory_term_lookup")],
            },
        ),
        migrations.CreateModel(
            name="MemoryContextAnchor",
            fields=[
                (
                    "pk",
                    models.CompositePrimaryKey(
                        "member_id",
                        "session_id",
                        "sequence",
                        "entry",
                        blank=True,
                        editable=False,
                        primary_key=True,
                        serialize=False,
                    ),
                ),
                ("member_id", models.UUIDField()),
                ("session_id", models.CharField(max_length=128)),
                ("sequence", models.PositiveIntegerField()),
                (
                    "entry",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="memory.memoryentry",
                    ),
                ),
            ],
        ),
        migrations.RunPython(rebuild, rebuild_corpus_json, elidable=True),
        migrations.DeleteModel(name="MemoryCorpusStats"),
    ]
