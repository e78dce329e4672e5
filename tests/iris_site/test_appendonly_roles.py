"""The append-only guard against a real non-owner role (PostgreSQL).

The role the README recommends for the application holds SELECT, INSERT, UPDATE and
DELETE on every table and owns none. Whatever it sets in its session, no UPDATE or
DELETE of an append-only row goes through; only the purge path, opened through
`iris_purge.permit_open` by a role granted it, deletes rows of the purgeable tables.
"""

import uuid

import pytest
from django.db import DatabaseError, connection, transaction

from consent.models import ConsentEvent
from consent.services import consent_ledger_purge, opt_out_record
from hierarchy.access import access_record_append
from iris_site.appendonly import TRIGGER_NAME, append_only_models, purge_bypass
from iris_site.audit.checkpoint import audit_checkpoint_seal
from iris_site.audit.events import Actor
from iris_site.models import AuditEvent
from memory.forgetting.services import memory_purge_entries
from memory.models import ConversationTurn, MemoryEntry, MemoryRevision
from memory.turns import conversation_turn_append
from tests.consent.factories import record
from tests.datarights.factories import submit
from tests.inspection.factories import granted
from tests.iris_site.factories import OperatorFactory
from tests.memory.factories import consenting_member, remember

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="roles and grants are PostgreSQL's"
    ),
]

PURGEABLE = {MemoryRevision, ConversationTurn, ConsentEvent}


def _pgid(model) -> str:
    (trigger,) = [t for t in model._meta.triggers if t.name == TRIGGER_NAME]
    return trigger.get_pgid(model)


@pytest.fixture
def world(settings, tmp_path):
    """At least one row in every append-only table, written through the services."""
    settings.AUDIT_CHECKPOINT_PATH = str(tmp_path / "checkpoints.jsonl")  # this test's sink
    member = consenting_member("category:medical")
    entry = remember(member, category="medical", subject="allergy", body="penicillin").entry
    remember(member, subject="coffee", body="I take my coffee black")  # pinned by the grant
    conversation_turn_append(
        member=member,
        session_id="s-1",
        speaker="member",
        text="Hello from the session",
        consumer="assistant",
        actor=Actor.of(member),
    )
    operator = OperatorFactory(role="support")
    access_record_append(
        action="hierarchy.stm.consolidate_requested",
        actor=Actor.of(operator),
        justification="Checking a consolidation the member asked about.",
        target_member_id=member.pk,
    )
    granted(operator, member)
    submit(member, "access")
    opt_out_record(
        member=member,
        category="embodied",
        opted_out=True,
        witness="session",
        actor=Actor.of(member),
    )
    audit_checkpoint_seal()
    for model in append_only_models():
        assert model.objects.exists(), f"no {model.__name__} row to attack"
    return member, entry


def _role(*, purge: bool) -> str:
    """A fresh non-owner role with every table privilege (rolled back with the test)."""
    name = f"iris_test_{'purger' if purge else 'app'}_{uuid.uuid4().hex[:8]}"
    with connection.cursor() as cursor:
        cursor.execute(f"CREATE ROLE {name} NOLOGIN")
        cursor.execute(f"GRANT USAGE ON SCHEMA public TO {name}")
        # Blanket grants, as a deployment might write them: they must not open a way in.
        cursor.execute(
            f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {name}"
        )
        cursor.execute(f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {name}")
        cursor.execute(f"GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA public TO {name}")
        if purge:
            cursor.execute(f"GRANT USAGE ON SCHEMA iris_purge TO {name}")
            cursor.execute(
                "GRANT EXECUTE ON FUNCTION iris_purge.permit_open(text[]), "
                f"iris_purge.permit_close() TO {name}"
            )
    return name


def _refused(role: str, *statements: str) -> str:
    """Run the statements as `role` in a savepoint; the last must fail. Its message."""
    with (
        pytest.raises(DatabaseError) as excinfo,
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(f"SET LOCAL ROLE {role}")
        for sql in statements:
            cursor.execute(sql)
    return str(excinfo.value)


def _attacks(model) -> list[tuple[str, ...]]:
    table, pk = model._meta.db_table, model._meta.pk.column
    row = model.objects.values_list("pk", flat=True).first()
    where = f"WHERE \"{pk}\" = '{row}'"
    # A harmless-looking self-assignment is still an UPDATE the guard must refuse.
    update = f'UPDATE "{table}" SET "{pk}" = "{pk}" {where}'
    delete = f'DELETE FROM "{table}" {where}'
    switch = f"SET LOCAL pgtrigger.ignore = '{{{_pgid(model)}}}'"
    return [(update,), (delete,), (switch, update), (switch, delete)]


@pytest.mark.parametrize("model", append_only_models(), ids=lambda m: m.__name__)
def test_a_non_owner_role_cannot_update_or_delete_whatever_it_sets(world, model):
    # given
    role = _role(purge=False)
    before = model.objects.count()
    # when / then: plain, and with pgtrigger's session switch on for this very trigger
    for attack in _attacks(model):
        assert "append-only" in _refused(role, *attack)
    # the session-level switches that would skip triggers are not the role's to use
    table = model._meta.db_table
    assert "permission denied" in _refused(role, "SET session_replication_role = replica")
    assert "must be owner" in _refused(role, f'ALTER TABLE "{table}" DISABLE TRIGGER ALL')
    open_permit = f"SELECT iris_purge.permit_open(ARRAY['{table}'])"
    assert "permission denied" in _refused(role, open_permit)
    assert "permission denied" in _refused(
        role, f"INSERT INTO iris_purge.permit VALUES (pg_current_xact_id(), '{table}')"
    )
    assert model.objects.count() == before


@pytest.mark.parametrize("model", append_only_models(), ids=lambda m: m.__name__)
def test_the_owner_session_gets_no_switch_either(world, model):
    # The tests connect as the owner: plain SQL is refused too; only ALTER TABLE (owner
    # and superuser) could lift the guard, which is what `tests.tamper` does.
    for attack in _attacks(model):
        with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
            for sql in attack:
                cursor.execute(sql)


@pytest.mark.parametrize("model", append_only_models(), ids=lambda m: m.__name__)
def test_a_purge_permit_deletes_only_from_purgeable_tables(world, model):
    # given: the purge worker's role, inside a permit for this table
    role = _role(purge=True)
    table = model._meta.db_table
    begin = f"SELECT iris_purge.permit_open(ARRAY['{table}'])"
    update, delete = _attacks(model)[:2]
    # then: no UPDATE under a permit (the consent ledger's chain-column re-chain, which
    # a self-assignment of the id passes as a no-op, has its own test below)
    if model is not ConsentEvent:
        assert "append-only" in _refused(role, begin, *update)
    if model in PURGEABLE:
        return
    # and tables without a purge path refuse the delete too
    assert "append-only" in _refused(role, begin, *delete)


def test_the_permit_rewrites_only_the_consent_ledgers_chain_columns(world):
    # given
    member, _ = world
    role = _role(purge=True)
    event = ConsentEvent.objects.filter(member=member).order_by("sequence").first()
    table = ConsentEvent._meta.db_table
    begin = f"SELECT iris_purge.permit_open(ARRAY['{table}'])"
    forge = f"UPDATE {table} SET legal_basis = 'vital_interests' WHERE id = '{event.pk}'"
    rechain = f"UPDATE {table} SET hash = previous_hash WHERE id = '{event.pk}'"
    # then: changing what was agreed to is refused, re-chaining goes through
    assert "append-only" in _refused(role, begin, forge)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"SET LOCAL ROLE {role}")
        cursor.execute(begin)
        cursor.execute(rechain)
        assert cursor.rowcount == 1
        cursor.execute("SELECT iris_purge.permit_close()")
        # the permit is closed: the same statement is refused again
        with pytest.raises(DatabaseError), transaction.atomic():
            cursor.execute(rechain)
        transaction.set_rollback(True)


def test_a_permit_removes_a_whole_consent_type_or_nothing(world):
    # given: a grant then a withdrawal of one type; removing only the withdrawal would
    # bring the grant back into force
    member, _ = world
    record(member, "category:financial")
    withdrawal = record(member, "category:financial", "withdrawal").event
    role = _role(purge=True)
    table = ConsentEvent._meta.db_table
    begin = f"SELECT iris_purge.permit_open(ARRAY['{table}'])"
    only_the_withdrawal = f"DELETE FROM {table} WHERE id = '{withdrawal.pk}'"
    whole_type = (
        f"DELETE FROM {table} WHERE member_id = '{member.pk}' "
        "AND consent_type = 'category:financial'"
    )
    # then: checked when the transaction ends (here: forced at once)
    immediate = "SET CONSTRAINTS ALL IMMEDIATE"
    assert "whole groups only" in _refused(role, begin, only_the_withdrawal, immediate)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"SET LOCAL ROLE {role}")
        for sql in (begin, whole_type, immediate):
            cursor.execute(sql)
        transaction.set_rollback(True)


def test_the_purge_paths_work_for_the_purge_role_and_not_for_the_application_role(world):
    # given
    member, entry = world
    app, purger = _role(purge=False), _role(purge=True)
    # when: the application role runs the memory purge
    with pytest.raises(DatabaseError), transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(f"SET LOCAL ROLE {app}")
        memory_purge_entries(member_id=member.pk, entry_ids=[entry.pk], reason="dsar-hard-delete")
    # then: refused, nothing gone
    assert MemoryEntry.objects.filter(pk=entry.pk).exists()
    # when: the purge worker's role runs the memory and consent-ledger purges
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(f"SET LOCAL ROLE {purger}")
        purged = memory_purge_entries(
            member_id=member.pk, entry_ids=[entry.pk], reason="dsar-hard-delete"
        )
        ledger = consent_ledger_purge(
            member=member, consent_types=["category:medical"], dsar_request_id=uuid.uuid4()
        )
        with connection.cursor() as cursor:
            cursor.execute("RESET ROLE")
    # then
    assert purged == 1 and ledger == 1
    assert not MemoryRevision.objects.filter(entry_id=entry.pk).exists()
    assert not ConsentEvent.objects.filter(member=member, consent_type="category:medical")
    assert AuditEvent.objects.filter(action="memory.entries.purged").exists()


def test_purge_bypass_refuses_a_table_without_a_purge_path():
    refused = pytest.raises(RuntimeError, match="no purge path")
    with refused, transaction.atomic(), purge_bypass(AuditEvent):
        pass
