"""The admin-only STM → STM cross-scope override (seed 004): an operator API path that
needs the admin role and a justification, is audited with ids only, and is the only way a
short-term row moves across scopes."""

import pytest

from hierarchy.models import OperatorAccessRecord, ShortTermMemory
from hierarchy.stm import stm_rescope
from hierarchy.transitions import IllegalTransition
from iris_site.audit.events import Actor
from iris_site.enums import OperatorRole
from tests.conftest import bearer_client
from tests.hierarchy.stm_factories import assert_no_content_in_chain, events, member_with, write
from tests.iris_site.factories import OperatorFactory, ServiceClientFactory, TenantFactory

pytestmark = pytest.mark.django_db
WHY = "incident 91: the agent crashed; moving its state to the retry run"


def url(row) -> str:
    return f"/api/v1/operator/memory-hierarchy/stm-rows/{row.pk}/rescope/"


def move(client, row, **fields):
    body = {"scope_kind": "agent_run", "scope_id": "run-9", "justification": WHY, **fields}
    return client.post(url(row), body, format="json")


def scope_of(row) -> tuple[str, str]:
    row = ShortTermMemory.objects.get(pk=row.pk)
    return row.scope_kind, row.scope_id


def test_an_admin_moves_a_row_with_a_justification_and_it_is_audited():
    row = write(member_with(), content="prefers morning walks")
    admin = OperatorFactory(role=OperatorRole.ADMIN)
    response = move(bearer_client(admin), row)
    assert response.status_code == 200, response.json()
    assert response.json()["scope_kind"] == "agent_run"
    assert scope_of(row) == ("agent_run", "run-9")
    [override] = events("hierarchy.stm.admin_rescoped")
    assert override.actor_id == admin.pk and override.payload["transition"] == "stm-x"
    record = OperatorAccessRecord.objects.get(pk=override.payload["access_record_id"])
    assert record.justification == WHY
    [rescoped] = events("hierarchy.stm.rescoped", stm_id=str(row.pk))
    assert rescoped.payload["access_record_id"] == override.payload["access_record_id"]
    # ids only: the justification and the content stay out of the chain
    assert_no_content_in_chain(WHY, "prefers morning walks", "run-9")


@pytest.mark.parametrize(
    "role", [OperatorRole.SUPPORT, OperatorRole.TRUST_AND_SAFETY, OperatorRole.LEGAL]
)
def test_no_other_operator_role_may_move_a_row(role):
    row = write(member_with())
    response = move(bearer_client(OperatorFactory(role=role)), row)
    assert response.status_code == 403
    assert scope_of(row) == ("user_session", "s-1")
    assert not events("hierarchy.stm.admin_rescoped")


def test_surfaces_and_members_may_not_move_a_row():
    member = member_with()
    row = write(member)
    assert move(bearer_client(ServiceClientFactory()), row).status_code == 403
    assert move(bearer_client(member), row).status_code == 403
    assert scope_of(row) == ("user_session", "s-1")


def test_the_justification_is_required():
    row = write(member_with())
    client = bearer_client(OperatorFactory(role=OperatorRole.ADMIN))
    for body in ({"justification": ""}, {"justification": "   "}):
        response = move(client, row, **body)
        assert response.status_code == 400
        assert "justification" in response.json()["error"]["fields"]
    missing = client.post(url(row), {"scope_kind": "agent_run", "scope_id": "r"}, format="json")
    assert missing.status_code == 400
    assert scope_of(row) == ("user_session", "s-1")
    assert not events("hierarchy.stm.admin_rescoped")


def test_a_tenant_bound_admin_reaches_its_own_tenants_members_only():
    tenant, elsewhere = TenantFactory(), TenantFactory()
    row = write(member_with(tenants=[elsewhere]))
    admin = OperatorFactory(role=OperatorRole.ADMIN, tenant=tenant)
    assert move(bearer_client(admin), row).status_code == 404
    assert scope_of(row) == ("user_session", "s-1")
    assert (
        bearer_client(admin)
        .post(
            "/api/v1/operator/memory-hierarchy/stm-rows/00000000-0000-0000-0000-000000000000/rescope/",
            {"scope_kind": "agent_run", "scope_id": "r", "justification": WHY},
            format="json",
        )
        .status_code
        == 404
    )


def test_the_service_refuses_everyone_but_an_admin_operator():
    row = write(member_with())
    for actor in (
        Actor.system("some-job"),
        Actor.of(OperatorFactory(role=OperatorRole.SUPPORT)),
        Actor.of(ServiceClientFactory()),
    ):
        with pytest.raises(IllegalTransition) as caught:
            stm_rescope(
                row=row,
                scope_kind="agent_run",
                scope_id="run-9",
                actor=actor,
                admin_override=True,
                justification=WHY,
            )
        assert caught.value.rule == "stm-cross-scope"
    # without the override flag not even an admin moves it
    with pytest.raises(IllegalTransition):
        stm_rescope(
            row=row,
            scope_kind="agent_run",
            scope_id="run-9",
            actor=Actor.of(OperatorFactory(role=OperatorRole.ADMIN)),
            justification=WHY,
        )
    assert scope_of(row) == ("user_session", "s-1")
