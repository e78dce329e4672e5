"""The operators' admin shows memory metadata only: no body, subject, note or turn text,
on any page, for any operator, not even a superuser; and nothing can be changed there
except a platform operator's narrowing of a service client, which can only take away."""

import json
import re

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from iris_site.audit.events import Actor
from iris_site.enums import OperatorRole
from iris_site.errors import InvalidInput
from iris_site.models import AuditEvent, ServiceClient
from memory.access.capabilities import capabilities_for
from memory.contracts import MemoryWriteRequest
from memory.forgetting.services import memory_clear_request
from memory.models import (
    ConversationTurn,
    MemoryClearRequest,
    MemoryEntry,
    MemoryNotice,
    MemoryRevision,
    OffTheRecordSession,
    RecallRecord,
    ServiceClientCapabilities,
)
from memory.selectors import principal_capabilities
from memory.services import (
    memory_edit,
    memory_off_the_record_set,
    memory_remember,
    service_client_capabilities_set,
)
from memory.turns import conversation_turn_append
from tests.conftest import bearer_client
from tests.consent.factories import record
from tests.iris_site.factories import (
    MemberFactory,
    OperatorFactory,
    ServiceClientFactory,
    TenantFactory,
)
from tests.memory.factories import consenting_member

pytestmark = pytest.mark.django_db

BODY = "I keep porcelain owls from my grandmother's attic."
EDITED = "I keep seven porcelain owls from my grandmother's attic."
SUBJECT = "owl collection"
NOTE = "my favourite aunt"
PROPOSAL = "I collect glass owls instead."
TURN = "The marmalade recipe uses bitter Seville oranges."
SECRETS = ("porcelain", "owl", "grandmother", NOTE, "glass owls", "marmalade", "Seville")


def _write(member, body, origin, **more):
    return MemoryWriteRequest.model_validate(
        {
            "scope": {"kind": "session", "session_id": "s-1"},
            "category": "preference",
            "subject": SUBJECT,
            "body": body,
            "origin": origin,
            **more,
        },
        context={"user_id": member.pk},
    )


@pytest.fixture
def memory_of_a_member():
    member = MemberFactory()
    for consent_type in ("data_processing", "data_storage"):
        record(member, consent_type)
    actor = Actor.of(member)
    entry = memory_remember(
        member=member,
        write=_write(
            member,
            BODY,
            "user-stated",
            multi_actor={"actor_name": "Ingrid", "relationship_note": NOTE},
        ),
        actor=actor,
    ).entry
    entry = memory_edit(entry=entry, actor=actor, body=EDITED)
    # an inference overturning a member's word becomes a draft plus a question
    memory_remember(
        member=member,
        write=_write(
            member,
            PROPOSAL,
            "model-inferred",
            multi_actor={"actor_handle": entry.actor_handle, "relationship_note": NOTE},
        ),
        actor=Actor.system("assistant"),
    )
    conversation_turn_append(
        member=member,
        session_id="s-1",
        speaker="member",
        text=TURN,
        consumer="assistant",
        actor=actor,
    )
    memory_off_the_record_set(member=member, active=False, actor=actor, session_id="s-1")
    memory_clear_request(member=member, actor=actor)
    # a recall's rationale may quote matched terms: shown to the member, never to operators
    RecallRecord.objects.create(
        member=member,
        surface="assistant",
        consumer="assistant",
        scope_key=f"session:{member.pk}:s-1",
        context="general",
        returned_ids=[str(entry.pk)],
        rationales={str(entry.pk): "matched porcelain owls"},
        evaluated_count=2,
        created_at=timezone.now(),
    )
    return entry


@pytest.fixture
def operator_client(client):
    operator = OperatorFactory(role=OperatorRole.ADMIN, is_superuser=True)
    client.force_login(operator)
    return client


def _assert_no_content(response):
    assert response.status_code == 200
    # random tokens (CSRF, CSP nonce, ids) can spell a secret by chance: drop long runs first
    page = re.sub(r"[A-Za-z0-9+/=_-]{20,}", "", response.content.decode())
    for secret in SECRETS:
        assert secret.lower() not in page.lower(), secret


MODELS = [
    MemoryEntry,
    MemoryRevision,
    ConversationTurn,
    MemoryNotice,
    MemoryClearRequest,
    OffTheRecordSession,
    RecallRecord,
]


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_no_changelist_or_detail_page_shows_content(operator_client, memory_of_a_member, model):
    # given: rows exist for the model
    objects = list(model.objects.all())
    assert objects
    opts = model._meta
    # when / then: the list, and every row's page
    changelist = reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist")
    response = operator_client.get(changelist)
    _assert_no_content(response)
    assert str(objects[0].pk) in response.content.decode()
    for obj in objects:
        change = reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[obj.pk])
        _assert_no_content(operator_client.get(change))


def test_the_entry_page_shows_its_metadata(operator_client, memory_of_a_member):
    entry = memory_of_a_member
    page = operator_client.get(f"/admin/memory/memoryentry/{entry.pk}/change/").content.decode()
    for shown in (str(entry.pk), str(entry.member_id), "Preference", "User Stated", "Session"):
        assert shown in page, shown
    assert entry.actor_handle not in page  # the masked handle is not shown either


def test_searching_by_content_finds_nothing(operator_client, memory_of_a_member):
    # the query itself is echoed back; no entry matches it
    response = operator_client.get("/admin/memory/memoryentry/", {"q": "porcelain"})
    assert response.status_code == 200
    assert "0 results" in response.content.decode()
    assert str(memory_of_a_member.pk) not in response.content.decode()
    by_id = operator_client.get("/admin/memory/memoryentry/", {"q": str(memory_of_a_member.pk)})
    assert "1 result" in by_id.content.decode()


def test_memory_cannot_be_added_changed_or_deleted_in_the_admin(
    operator_client, memory_of_a_member
):
    entry = memory_of_a_member
    base = "/admin/memory/memoryentry/"
    assert operator_client.get(f"{base}add/").status_code == 403
    assert (
        operator_client.post(f"{base}{entry.pk}/change/", {"lifecycle": "active"}).status_code
        == 403
    )
    assert operator_client.post(f"{base}{entry.pk}/delete/", {"post": "yes"}).status_code == 403
    entry.refresh_from_db()
    assert entry.lifecycle == "active" and entry.body == EDITED


# --- the one writable table: a platform operator narrows a service client --------------

NARROWINGS = "/admin/memory/serviceclientcapabilities/"
WHY_NARROW = "Ticket 5120: this Tara build must not claim the health context."


def narrowing_form(client, **given):
    """A change form as the page posts it (every box the page showed, unless given)."""
    offered = capabilities_for(client.consumer)
    data = {
        "service_client": str(client.pk),
        "shown_for": str(client.pk),
        "reason": WHY_NARROW,
        "surfaces": sorted(offered.surfaces),
        "contexts": sorted(offered.contexts - {"general"}),
        "read_kinds": sorted(offered.read_kinds),
        "write_kinds": sorted(offered.write_kinds),
    }
    return data | given


def recall(client, member, context):
    return bearer_client(client).post(
        f"/api/v1/members/{member.pk}/recall/",
        {"surface": "shell", "scope": {"kind": "profile"}, "context": context},
        format="json",
    )


def test_a_tenant_bound_operator_never_reaches_the_narrowings():
    # given: bound to a tenant, granted every permission there is
    operator = OperatorFactory(role=OperatorRole.ADMIN, tenant=TenantFactory(), is_superuser=True)
    tara = ServiceClientFactory(consumer="tara")
    console = Client()
    console.force_login(operator)
    # when / then
    assert console.get(NARROWINGS).status_code == 403
    assert console.get(f"{NARROWINGS}add/").status_code == 403
    assert console.post(f"{NARROWINGS}add/", narrowing_form(tara)).status_code == 403
    assert not ServiceClientCapabilities.objects.exists()
    assert NARROWINGS not in console.get("/admin/").content.decode()


def test_a_narrowing_holds_on_the_clients_next_request(operator_client):
    # given: Tara may claim the health context
    tara = ServiceClientFactory(consumer="tara")
    member = consenting_member("category:medical")
    assert recall(tara, member, "health").status_code == 200
    # when: a platform operator takes the health context away
    page = operator_client.get(f"{NARROWINGS}add/", {"service_client": str(tara.pk)})
    saved = operator_client.post(f"{NARROWINGS}add/", narrowing_form(tara, contexts=["safety"]))
    # then
    offered = page.context["adminform"].form
    assert offered.fields["contexts"].choices == [("health", "health"), ("safety", "safety")]
    assert offered["contexts"].value() == ["health", "safety"]  # all ticked: the table
    assert saved.status_code == 302, saved.content.decode()[:2000]
    row = ServiceClientCapabilities.objects.get(service_client=tara)
    assert (row.contexts, row.surfaces, row.read_kinds, row.reason) == (
        ["safety"],
        None,
        None,
        WHY_NARROW,
    )
    refused = recall(tara, member, "health")
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "context-not-allowed"
    assert recall(tara, member, "safety").status_code == 200
    fresh = ServiceClient.objects.get(pk=tara.pk)
    assert principal_capabilities(fresh).contexts == {"general", "safety"}
    [event] = AuditEvent.objects.filter(action="memory.service_client_capabilities.set")
    assert event.payload == {
        "service_client_id": str(tara.pk),
        "consumer": "tara",
        "surfaces": None,
        "contexts": ["safety"],
        "read_kinds": None,
        "write_kinds": None,
    }
    assert "ticket" not in json.dumps(event.payload).lower()
    assert event.actor_type == "operator"


def test_a_value_outside_the_consumers_capabilities_is_rejected(operator_client):
    # given: Tara has the shell budget only, and no crisis context
    tara = ServiceClientFactory(consumer="tara")
    for widening in (
        {"surfaces": ["notebook"]},
        {"contexts": ["crisis"]},
        {"read_kinds": ["tenant"]},
    ):
        # when
        response = operator_client.post(f"{NARROWINGS}add/", narrowing_form(tara, **widening))
        # then: the form refuses it and nothing is stored or audited
        assert response.status_code == 200
        [field] = widening
        assert "Select a valid choice" in str(response.context["adminform"].form.errors[field])
    assert not ServiceClientCapabilities.objects.exists()
    assert not AuditEvent.objects.filter(action="memory.service_client_capabilities.set")
    # and the writer itself refuses a widening from any other caller
    with pytest.raises(InvalidInput) as refusal:
        service_client_capabilities_set(
            service_client=tara, actor=Actor.system(), reason=WHY_NARROW, surfaces=["assistant"]
        )
    assert refusal.value.code == "capabilities-widened"
    assert list(refusal.value.fields) == ["surfaces"]


def test_a_reason_is_required_and_the_first_submit_only_shows_the_choices(operator_client):
    tara = ServiceClientFactory(consumer="tara")
    no_reason = operator_client.post(f"{NARROWINGS}add/", narrowing_form(tara, reason=" "))
    assert "reason" in no_reason.context["adminform"].form.errors
    # a client chosen on the add page: its boxes are shown, all ticked; nothing is saved
    chosen = operator_client.post(
        f"{NARROWINGS}add/",
        {"service_client": str(tara.pk), "reason": WHY_NARROW},
    )
    assert chosen.status_code == 200
    form = chosen.context["adminform"].form
    assert form["contexts"].value() == ["health", "safety"]
    assert form["surfaces"].value() == sorted(capabilities_for("tara").surfaces)
    assert form.non_field_errors() == ["Choose what this client keeps, then save."]
    assert not ServiceClientCapabilities.objects.exists()


def test_a_narrowing_is_changed_in_place_and_never_deleted(operator_client):
    tara = ServiceClientFactory(consumer="tara")
    service_client_capabilities_set(
        service_client=tara, actor=Actor.system(), reason=WHY_NARROW, contexts=["safety"]
    )
    change = f"{NARROWINGS}{tara.pk}/change/"
    shown = operator_client.get(change).context["adminform"].form
    assert shown["contexts"].value() == ["safety"]  # what is stored, ticked
    assert shown["surfaces"].value() == sorted(capabilities_for("tara").surfaces)
    # every box ticked again: the client follows the table
    assert operator_client.post(change, narrowing_form(tara)).status_code == 302
    row = ServiceClientCapabilities.objects.get(service_client=tara)
    assert row.contexts is None
    assert principal_capabilities(ServiceClient.objects.get(pk=tara.pk)) == capabilities_for("tara")
    assert (
        operator_client.post(f"{NARROWINGS}{tara.pk}/delete/", {"post": "yes"}).status_code == 403
    )
    assert AuditEvent.objects.filter(action="memory.service_client_capabilities.set").count() == 2
