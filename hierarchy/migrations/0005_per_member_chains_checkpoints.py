# Per-member audit chains and signed checkpoints (issue 18).
#
# Existing events are re-chained: each goes to its target member's chain (or the platform
# chain) in their old order, and their links and hashes are recomputed. First the old
# single chain is verified with its own rules; a broken one stops the migration, since
# re-chaining it would launder the break. The last step appends a platform event that
# records how many events were re-chained and the old chain's head hash, so a head
# exported before the migration can still be matched against it.
#
# The append-only guard is lifted for the re-chain by the table owner's DDL (ALTER TABLE
# ... DISABLE TRIGGER inside the migration's transaction; the migrating role owns the
# table); nothing at run time can do that.

import hashlib
import json
import uuid
from datetime import UTC

import pgtrigger.compiler
import pgtrigger.migrations
from django.db import migrations, models
from django.utils import timezone

import iris_site.appendonly

GENESIS = "0" * 64
PLATFORM = "platform"
SEQUENCE = "hierarchy_auditevent_sequence_seq"


def _iso(moment):
    return moment.astimezone(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def _canonical(value) -> bytes:
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


def _none_or_str(value):
    return None if value is None else str(value)


def _legacy_body(event) -> dict:
    """The single chain's hashed form before this migration (frozen here)."""
    return {
        "sequence": event.sequence,
        "id": str(event.id),
        "action": event.action,
        "policy_id": event.policy_id,
        "severity": event.severity,
        "actor_type": event.actor_type,
        "actor_id": _none_or_str(event.actor_id),
        "actor_role": event.actor_role,
        "target_member_id": _none_or_str(event.target_member_id),
        "target_tenant_id": _none_or_str(event.target_tenant_id),
        "payload": event.payload,
        "occurred_at": _iso(event.occurred_at),
    }


def _chained_body(event, chain, chain_sequence) -> dict:
    return {**_legacy_body(event), "chain": chain, "chain_sequence": chain_sequence}


def _digest(previous: str, body: dict) -> str:
    return hashlib.sha256(previous.encode("ascii") + _canonical(body)).hexdigest()


def _set_guard(schema_editor, model, *, enabled: bool) -> None:
    table = schema_editor.quote_name(model._meta.db_table)
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"ALTER TABLE {table} {'ENABLE' if enabled else 'DISABLE'} TRIGGER USER")
    else:
        iris_site.appendonly.sqlite_set_triggers([model], enabled=enabled)


def rechain(apps, schema_editor):
    AuditEvent = apps.get_model("hierarchy", "AuditEvent")
    events = list(AuditEvent.objects.order_by("sequence"))
    if not events:
        return
    previous = GENESIS
    for event in events:
        if event.previous_hash != previous or _digest(previous, _legacy_body(event)) != event.hash:
            raise RuntimeError(
                f"the audit chain is broken at event {event.id} (sequence {event.sequence}); "
                "re-chaining would hide that: investigate, then migrate"
            )
        previous = event.hash
    legacy_head = previous

    heads: dict[str, tuple[int, str]] = {}
    _set_guard(schema_editor, AuditEvent, enabled=False)
    for event in events:
        chain = str(event.target_member_id) if event.target_member_id else PLATFORM
        number, prior = heads.get(chain, (0, GENESIS))
        digest = _digest(prior, _chained_body(event, chain, number + 1))
        AuditEvent.objects.filter(pk=event.pk).update(
            chain_key=chain, chain_sequence=number + 1, previous_hash=prior, hash=digest
        )
        heads[chain] = (number + 1, digest)
    _set_guard(schema_editor, AuditEvent, enabled=True)

    marker = AuditEvent(
        id=uuid.uuid4(),
        sequence=events[-1].sequence + 1,
        action="audit.chains.rechained",
        policy_id="iris-audit-v1",
        severity="info",
        actor_type="system",
        actor_id=None,
        actor_role="migration",
        target_member_id=None,
        target_tenant_id=None,
        payload={"events": len(events), "chains": len(heads), "legacy_head": legacy_head},
        occurred_at=timezone.now().astimezone(UTC),
    )
    number, prior = heads.get(PLATFORM, (0, GENESIS))
    marker.chain_key, marker.chain_sequence, marker.previous_hash = PLATFORM, number + 1, prior
    marker.hash = _digest(prior, _chained_body(marker, PLATFORM, number + 1))
    marker.save(force_insert=True)


def create_sequence(apps, schema_editor):
    """PostgreSQL numbers events platform-wide from a sequence: no head read on append."""
    if schema_editor.connection.vendor != "postgresql":
        return
    table = apps.get_model("hierarchy", "AuditEvent")._meta.db_table
    schema_editor.execute(f"CREATE SEQUENCE {SEQUENCE} AS bigint OWNED BY {table}.sequence")
    schema_editor.execute(
        f"SELECT setval('{SEQUENCE}', COALESCE((SELECT MAX(sequence) FROM {table}), 0) + 1, false)"
    )


def drop_sequence(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP SEQUENCE IF EXISTS {SEQUENCE}")


class Migration(migrations.Migration):

    dependencies = [
        ("hierarchy", "0004_append_only_guard_without_session_switch"),
    ]

    operations = [
        migrations.AddField(
            model_name="auditevent",
            name="chain_key",
            field=models.CharField(editable=False, max_length=36, null=True),
        ),
        migrations.AddField(
            model_name="auditevent",
            name="chain_sequence",
            field=models.BigIntegerField(editable=False, null=True),
        ),
        migrations.RunPython(rechain, migrations.RunPython.noop, elidable=False),
        migrations.AlterField(
            model_name="auditevent",
            name="chain_key",
            field=models.CharField(editable=False, max_length=36),
        ),
        migrations.AlterField(
            model_name="auditevent",
            name="chain_sequence",
            field=models.BigIntegerField(editable=False),
        ),
        migrations.AddConstraint(
            model_name="auditevent",
            constraint=models.UniqueConstraint(
                fields=("chain_key", "chain_sequence"), name="audit_chain_position"
            ),
        ),
        migrations.RunPython(create_sequence, drop_sequence),
        # SQLite rebuilt the table for the NOT NULL columns, dropping its native triggers.
        iris_site.appendonly.SQLiteAppendOnly("auditevent"),
        migrations.CreateModel(
            name="AuditCheckpoint",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("number", models.BigIntegerField(editable=False, unique=True)),
                ("sealed_at", models.DateTimeField(editable=False)),
                ("previous", models.CharField(editable=False, max_length=64)),
                ("root", models.CharField(editable=False, max_length=64)),
                ("tree_size", models.BigIntegerField(editable=False)),
                ("key_id", models.CharField(editable=False, max_length=16)),
                ("signature", models.CharField(editable=False, max_length=88)),
                ("heads", models.JSONField(default=list, editable=False)),
            ],
            options={
                "ordering": ["-number"],
            },
        ),
        pgtrigger.migrations.AddTrigger(
            model_name="auditcheckpoint",
            trigger=pgtrigger.compiler.Trigger(name="append_only", sql=iris_site.appendonly.GuardSql(func="RAISE EXCEPTION 'append-only: % rejects %', TG_TABLE_NAME, TG_OP;", hash="625ecb7d72e409a3bb189d5c0d3cd03354587b3c", operation="UPDATE OR DELETE", pgid="pgtrigger_append_only_08894", table="hierarchy_auditcheckpoint", when="BEFORE")),
        ),
        iris_site.appendonly.SQLiteAppendOnly("auditcheckpoint"),
    ]
