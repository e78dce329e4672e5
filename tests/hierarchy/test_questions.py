"""The member's open questions, for the surfaces: only what the read gate lets the
calling client see, the rest counted by reason; another member's are never listed; every
read is audited with ids and counts."""

import uuid

import pytest

from iris_site.audit.events import Actor
from iris_site.models import AuditEvent
from iris_site.services import token_revoke
from memory.forgetting.services import memory_clear_request
from memory.services import memory_notice_answer, memory_off_the_record_set
from tests.conftest import bearer_client
from tests.iris_site.factories import ServiceClientFactory
from tests.memory.factories import consenting_member, remember

pytestmark = pytest.mark.django_db


def questions(member) -> str:
    return f"/api/v1/members/{member.pk}/questions/"


def asked(member, subject="coffee"):
    """The member's word, then an inference on the same key: Iris asks the member."""
    remember(member, subject=subject, body="I take my coffee black")
    return remember(member, subject=subject, body="takes oat milk", origin="model-inferred").notice


@pytest.fixture
def service():
    return bearer_client(ServiceClientFactory(consumer="assistant"))


def test_a_surface_lists_the_members_open_questions(service):
    member = consenting_member()
    notice = asked(member)
    response = service.get(questions(member))
    assert response.status_code == 200
    [question] = response.json()["questions"]
    assert question["id"] == str(notice.pk)
    assert question["kind"] == "conflict-question"
    assert (question["entry_body"], question["proposed_body"]) == (
        "I take my coffee black",
        "takes oat milk",
    )
    assert response.json()["withheld"] == {}
    [read] = AuditEvent.objects.filter(action="hierarchy.questions.read")
    assert read.payload == {
        "context": "general",
        "notice_ids": [str(notice.pk)],
        "question_count": 1,
        "withheld_counts": {},
    }
    assert "coffee" not in str(read.payload)


def test_another_members_questions_are_never_listed(service):
    member, other = consenting_member(), consenting_member()
    asked(other)
    response = service.get(questions(member))
    assert response.json() == {"questions": [], "withheld": {}}


def test_an_answered_question_is_no_longer_listed(service):
    member = consenting_member()
    notice = asked(member)
    memory_notice_answer(notice=notice, accept=False, actor=Actor.of(member))
    assert service.get(questions(member)).json()["questions"] == []


@pytest.mark.parametrize(
    ("withhold", "reason"),
    [
        (
            lambda m: memory_clear_request(member=m, actor=Actor.of(m)),
            "full-clear-pending",
        ),
        (
            lambda m: memory_off_the_record_set(member=m, active=True, actor=Actor.of(m)),
            "off-the-record",
        ),
    ],
)
def test_the_read_gate_withholds_and_counts(service, withhold, reason):
    member = consenting_member()
    asked(member)
    withhold(member)
    response = service.get(questions(member))
    assert response.status_code == 200
    assert response.json() == {"questions": [], "withheld": {reason: 1}}
    assert "coffee" not in response.content.decode()


def test_a_context_outside_the_capabilities_is_403():
    client = bearer_client(ServiceClientFactory(consumer="veritas"))
    member = consenting_member()
    asked(member)
    response = client.get(questions(member), {"context": "health"})
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "context-not-allowed"
    assert not AuditEvent.objects.filter(action="hierarchy.questions.read").exists()


def test_an_unknown_member_is_404(service):
    response = service.get(f"/api/v1/members/{uuid.uuid4()}/questions/")
    assert response.status_code == 404


def test_a_revoked_token_is_401():
    owner = ServiceClientFactory(consumer="assistant")
    client = bearer_client(owner)
    token_revoke(token=owner.api_tokens.get())
    assert client.get(questions(consenting_member())).status_code == 401
