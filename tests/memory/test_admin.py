"""The operators' admin shows memory metadata only: no body, subject, note or turn text,
on any page, for any operator, not even a superuser; and nothing can be changed there."""

import pytest
from django.urls import reverse
from django.utils import timezone

from hierarchy.events import Actor
from iris_site.enums import OperatorRole
from memory.contracts import MemoryWriteRequest
from memory.models import (
    ConversationTurn,
    MemoryClearRequest,
    MemoryEntry,
    MemoryNotice,
    MemoryRevision,
    OffTheRecordSession,
    RecallRecord,
)
from memory.services import (
    memory_clear_request,
    memory_edit,
    memory_off_the_record_set,
    memory_remember,
)
from memory.turns import conversation_turn_append
from tests.consent.factories import record
from tests.iris_site.factories import MemberFactory, OperatorFactory

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
    page = response.content.decode()
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
