"""The audit append in one round trip on PostgreSQL (issue 43): a function that takes the
chain's advisory lock, draws the platform-wide number, reads the chain's head and inserts
the event hashed from it. Each of its statements sees what committed before it ran (a
volatile function takes a new snapshot per statement under READ COMMITTED), so the head
is read after the lock is held, as the Python path reads it. The hash is the Python one:
the caller sends the event's canonical JSON cut around its two numbers, and the function
only joins the pieces (`iris_site.audit.events.append_statement`). Nothing on SQLite,
where the append stays in Python under the database's one write lock."""

from django.db import migrations

FUNCTION = """
CREATE OR REPLACE FUNCTION iris_audit_append(
    p_lock_class integer,
    p_lock_key integer,
    p_chain varchar,
    p_id uuid,
    p_action varchar,
    p_policy_id varchar,
    p_severity varchar,
    p_actor_type varchar,
    p_actor_id uuid,
    p_actor_role varchar,
    p_target_member_id uuid,
    p_target_tenant_id uuid,
    p_payload jsonb,
    p_occurred_at timestamptz,
    p_before_chain_sequence text,
    p_before_sequence text,
    p_after_sequence text,
    p_genesis varchar
) RETURNS TABLE (
    out_sequence bigint, out_chain_sequence bigint, out_previous_hash varchar, out_hash varchar
) LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    v_sequence bigint;
    v_head_sequence bigint;
    v_head_hash varchar;
    v_hash varchar;
BEGIN
    PERFORM pg_advisory_xact_lock(p_lock_class, p_lock_key);
    v_sequence := nextval('hierarchy_auditevent_sequence_seq');
    SELECT e.chain_sequence, e.hash INTO v_head_sequence, v_head_hash
        FROM hierarchy_auditevent e WHERE e.chain_key = p_chain
        ORDER BY e.chain_sequence DESC LIMIT 1;
    IF NOT FOUND THEN
        v_head_sequence := 0;
        v_head_hash := p_genesis;
    END IF;
    v_hash := encode(sha256(convert_to(
        v_head_hash || p_before_chain_sequence || (v_head_sequence + 1)::text
        || p_before_sequence || v_sequence::text || p_after_sequence, 'UTF8')), 'hex');
    INSERT INTO hierarchy_auditevent (
        id, sequence, chain_key, chain_sequence, action, policy_id, severity, actor_type,
        actor_id, actor_role, target_member_id, target_tenant_id, payload, occurred_at,
        previous_hash, hash
    ) VALUES (
        p_id, v_sequence, p_chain, v_head_sequence + 1, p_action, p_policy_id, p_severity,
        p_actor_type, p_actor_id, p_actor_role, p_target_member_id, p_target_tenant_id,
        p_payload, p_occurred_at, v_head_hash, v_hash
    );
    RETURN QUERY SELECT v_sequence, v_head_sequence + 1, v_head_hash, v_hash;
END
$$;
"""


def create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FUNCTION)


def drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            "DROP FUNCTION IF EXISTS iris_audit_append("
            "integer, integer, varchar, uuid, varchar, varchar, varchar, varchar, uuid,"
            " varchar, uuid, uuid, jsonb, timestamptz, text, text, text, varchar)"
        )


class Migration(migrations.Migration):
    dependencies = [
        ("iris_site", "0006_operator_signins"),
    ]

    operations = [migrations.RunPython(create, drop)]
