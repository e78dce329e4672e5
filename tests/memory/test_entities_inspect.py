"""The operator CLI's `ltm --entity` on real entity ids, in every entity state (seed 004):
metadata only, justified and audited, never a label."""

import io
import json

import pytest
from django.core.management import call_command

from iris_site.audit.events import Actor
from iris_site.enums import OperatorRole
from memory.entities.services import entities_archive_idle, entity_retire
from memory.models import MemoryEntity, MemoryEntry
from tests.hierarchy.stm_factories import events
from tests.iris_site.factories import OperatorFactory, TenantFactory
from tests.memory.factories import consenting_member, remember

pytestmark = pytest.mark.django_db
WHY = "incident 12: what does the store hold about this entity"
OPERATOR = "entity-operator@example.test"
NAME = "Robin Example"


def inspect(entity_id, operator=OPERATOR, *extra) -> dict:
    out = io.StringIO()
    call_command(
        "memory_inspect",
        "ltm",
        "--entity",
        str(entity_id),
        "--justification",
        WHY,
        "--json",
        *extra,
        "--operator",
        operator,
        stdout=out,
    )
    return json.loads(out.getvalue())


def robin(member, **fields):
    return remember(
        member,
        category="relationship",
        subject=fields.pop("subject", "garden"),
        body=fields.pop("body", "Robin helps with the garden"),
        multi_actor={"actor_name": NAME, "relationship_note": "my neighbour"},
        **fields,
    ).entry


def test_ltm_by_entity_id_lists_its_entries_in_every_state_of_the_entity():
    OperatorFactory(email=OPERATOR, role=OperatorRole.TRUST_AND_SAFETY)
    member = consenting_member()
    first = robin(member)
    second = robin(member, body="Robin now helps on Sundays")  # supersedes the first
    person = MemoryEntity.objects.get(member=member, kind="person")
    # active: both entries, every lifecycle
    data = inspect(person.pk)
    assert data["lookup"] == "entity"
    assert data["entity"] == {"id": str(person.pk), "kind": "person", "state": "active"}
    assert {e["id"] for e in data["entries"]} == {str(first.pk), str(second.pk)}
    assert data["counts"]["superseded"] == 1 and data["counts"]["active"] == 1
    assert NAME not in json.dumps(data) and "garden" not in json.dumps(data)
    # archived: nothing live is about it
    MemoryEntry.objects.filter(pk=second.pk).update(lifecycle="superseded")
    entities_archive_idle(now=second.updated_at, actor=Actor.system("test"))
    assert inspect(person.pk)["entity"]["state"] == "archived"
    # retired: the entity is still found; its entries were erased with it
    entity_retire(member=member, entity_id=person.pk, actor=Actor.of(member))
    retired = inspect(person.pk)
    assert retired["entity"]["state"] == "retired" and retired["counts"]["total"] == 0
    reads = events("hierarchy.ltm.read", entity_id=str(person.pk))
    assert [r.payload["entity_state"] for r in reads] == ["active", "archived", "retired"]
    assert all(r.target_member_id == member.pk for r in reads)
    # an entry id still answers as an entry id
    assert inspect(first.pk)["lookup"] == "entry-id"


def test_a_tenant_bound_operator_never_finds_another_tenants_entity():
    tenant, elsewhere = TenantFactory(), TenantFactory()
    OperatorFactory(email=OPERATOR, role=OperatorRole.TRUST_AND_SAFETY, tenant=tenant)
    member = consenting_member(tenants=[elsewhere])
    robin(member)
    person = MemoryEntity.objects.get(member=member, kind="person")
    data = inspect(person.pk)
    assert data["entity"] is None and data["counts"]["total"] == 0
