"""Continuation tokens over HTTP: status codes, the error envelope with the field named,
idempotent replays, surface rights, member isolation and the resume view."""

import uuid
from datetime import timedelta

import pytest
from django.db import models
from django.utils import timezone
from rest_framework.test import APIClient

from continuity.models import ContinuationToken, ContinuityNotice
from iris_site.models import IdempotencyRecord
from tests.conftest import bearer_client
from tests.consent.factories import record
from tests.continuity.factories import (
    assert_no_free_text,
    audit_events,
    surface_client,
    token_body,
    write,
)
from tests.iris_site.factories import (
    MemberFactory,
    OperatorFactory,
    ServiceClientFactory,
    TenantFactory,
)

pytestmark = pytest.mark.django_db

ME = "/api/v1/me/continuation-tokens/"


def tokens_url(member_id) -> str:
    return f"/api/v1/members/{member_id}/continuation-tokens/"


def resume_url(member_id, token_id) -> str:
    return f"{tokens_url(member_id)}{token_id}/resume/"


def me_resume_url(token_id) -> str:
    return f"{ME}{token_id}/resume/"


def put(client, member_id, body, **headers):
    return client.put(tokens_url(member_id), body, format="json", headers=headers)


def assert_invalid(response, field: str) -> None:
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["message"] and field in error["fields"], error


# --- writes ---------------------------------------------------------------------------------


def test_put_creates_then_replays_with_the_same_answer():
    # given
    member = MemberFactory()
    tara = surface_client("tara")
    body = token_body(member.pk, idempotency_key="k-1")
    # when
    created = put(tara, member.pk, body, **{"Idempotency-Key": "k-1"})
    replayed = put(tara, member.pk, body, **{"Idempotency-Key": "k-1"})
    # then
    assert created.status_code == 201
    answer = created.json()
    assert answer["outcome"] == "created" and answer["revision"] == 1
    assert {k: answer[k] for k in body} == body  # stored as sent
    # the first answer again, its status included, and nothing written
    assert replayed.status_code == 201 and replayed.json() == answer
    assert ContinuationToken.objects.get(member=member).revision == 1
    assert replayed.headers["Idempotent-Replayed"] == "true"
    assert "Idempotent-Replayed" not in created.headers
    [event] = audit_events("continuity.token.written", member)
    assert event.actor_type == "service" and event.actor_role == "tara"
    assert_no_free_text(event, "laptop-1", "chapter-4", "00:14:32", "k-1", "session:s-1")


def test_put_answer_reads_back_identically():
    member = MemberFactory()
    answer = put(surface_client("tara"), member.pk, token_body(member.pk)).json()
    [listed] = surface_client("tara").get(tokens_url(member.pk)).json()["results"]
    assert listed == {k: v for k, v in answer.items() if k != "outcome"}


def test_same_key_with_a_different_body_is_409():
    member = MemberFactory()
    tara = surface_client("tara")
    put(tara, member.pk, token_body(member.pk, idempotency_key="k-1"))
    response = put(tara, member.pk, token_body(member.pk, idempotency_key="k-1", posture="paused"))
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "idempotency-key-reused"
    assert ContinuationToken.objects.get(member=member).posture == "listening"


def test_a_header_that_disagrees_with_the_body_is_400():
    member = MemberFactory()
    response = put(
        surface_client("tara"),
        member.pk,
        token_body(member.pk, idempotency_key="k-1"),
        **{"Idempotency-Key": "k-2"},
    )
    assert_invalid(response, "idempotency_key")
    assert not IdempotencyRecord.objects.exists()


def test_a_second_device_replaces_the_token_with_200():
    member = MemberFactory()
    tara = surface_client("tara")
    put(tara, member.pk, token_body(member.pk, device_id="laptop-1"))
    response = put(tara, member.pk, token_body(member.pk, device_id="phone-1"))
    assert response.status_code == 200
    assert response.json()["outcome"] == "replaced" and response.json()["revision"] == 2


def _mutations():
    long = "x" * 161
    return [
        ({"scope_key": long}, "scope_key"),
        ({"scope_key": "has space"}, "scope_key"),
        ({"device_id": "d" * 97}, "device_id"),
        ({"idempotency_key": ""}, "idempotency_key"),
        ({"token_id": "nope"}, "token_id"),
        ({"user_id": str(uuid.uuid4())}, "user_id"),
        ({"posture": "dozing"}, "posture"),
        ({"last_updated_at": "2026-11-30T10:00:00"}, "last_updated_at"),
        (
            {"surface_context": {"surface": "tara", "session_id": "a b"}},
            "surface_context.session_id",
        ),
        (
            {"anchor_ref": {"surface": "psyche", "anchor_id": "a", "cursor": "1"}},
            "anchor_ref.surface",
        ),
        (
            {"anchor_ref": {"surface": "tara", "anchor_id": "a", "cursor": "c" * 65}},
            "anchor_ref.cursor",
        ),
        ({"sensitive_categories": ["medical"]}, "cross_device_consent_id"),
        ({"sensitive_categories": ["hobby"]}, "sensitive_categories.0"),
        (
            {"sensitive_categories": ["medical"] * 2, "cross_device_consent_id": str(uuid.uuid4())},
            "sensitive_categories",
        ),
        ({"cross_device_consent_id": str(uuid.uuid4())}, "cross_device_consent_id"),
        ({"body": "We talked about my mother"}, "body"),
        ({"text": "chapter text"}, "text"),
        ({"transcript": "hello there"}, "transcript"),
    ]


@pytest.mark.parametrize(("mutation", "field"), _mutations())
def test_every_invariant_and_limit_is_a_400_naming_the_field(mutation, field):
    member = MemberFactory()
    response = put(surface_client("tara"), member.pk, token_body(member.pk, **mutation))
    assert_invalid(response, field)
    assert not ContinuationToken.objects.exists()
    assert audit_events("continuity.token.written") == []


def test_seventeen_sensitive_categories_are_400():
    member = MemberFactory()
    grant = record(member, "cross_device").event
    body = token_body(
        member.pk,
        surface="psyche",
        sensitive_categories=[  # seventeen of the nineteen
            "pose_alignment",
            "biometric",
            "spiritual",
            "medical",
            "sexual",
            "financial",
            "legal",
            "safety",
            "physical_health",
            "mental_health",
            "substance_use",
            "sexuality",
            "gender_identity",
            "religion_user_redacted",
            "abuse_history",
            "immigration_status",
            "financial_distress",
        ],
        cross_device_consent_id=str(grant.pk),
    )
    assert_invalid(put(surface_client("psyche"), member.pk, body), "sensitive_categories")
    body["sensitive_categories"] = body["sensitive_categories"][:16]
    assert put(surface_client("psyche"), member.pk, body).status_code == 201


def test_a_withdrawn_grant_is_400_with_its_code():
    member = MemberFactory()
    grant = record(member, "cross_device").event
    record(member, "cross_device", kind="withdrawal")
    body = token_body(
        member.pk,
        surface="psyche",
        sensitive_categories=["mental_health"],
        cross_device_consent_id=str(grant.pk),
    )
    response = put(surface_client("psyche"), member.pk, body)
    assert_invalid(response, "cross_device_consent_id")
    assert response.json()["error"]["code"] == "cross-device-consent-not-active"


@pytest.mark.parametrize("body", [[], "token", {"token": {}}])
def test_a_body_that_is_not_a_token_is_400(body):
    member = MemberFactory()
    response = surface_client("tara").put(tokens_url(member.pk), body, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["fields"]


def test_no_content_column_exists_to_store_anything_in():
    for model in (ContinuationToken, ContinuityNotice, IdempotencyRecord):
        names = {field.name for field in model._meta.get_fields()}
        assert not names & {"body", "text", "transcript", "content", "note", "title", "summary"}
        assert not any(isinstance(f, models.TextField) for f in model._meta.get_fields())
        for field in model._meta.get_fields():
            if isinstance(field, models.CharField):
                assert field.max_length <= 160, field


# --- rights -----------------------------------------------------------------------------------


def test_a_tara_client_cannot_write_a_psyche_token():
    member = MemberFactory()
    response = put(surface_client("tara"), member.pk, token_body(member.pk, surface="psyche"))
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "surface-not-yours"
    assert not ContinuationToken.objects.exists()


def test_a_non_continuity_consumer_cannot_write_or_read():
    member = MemberFactory()
    assistant = surface_client("assistant")
    assert put(assistant, member.pk, token_body(member.pk)).status_code == 403
    response = assistant.get(tokens_url(member.pk))
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "not-a-continuity-surface"


def test_members_and_operators_cannot_use_the_surface_endpoint():
    member = MemberFactory()
    for principal in (member, OperatorFactory()):
        client = bearer_client(principal)
        assert put(client, member.pk, token_body(member.pk)).status_code == 403
        assert client.get(tokens_url(member.pk)).status_code == 403
    assert APIClient().get(tokens_url(member.pk)).status_code == 401
    assert APIClient().get(ME).status_code == 401


def test_an_unknown_member_is_404():
    tara = surface_client("tara")
    ghost = uuid.uuid4()
    assert put(tara, ghost, token_body(ghost)).status_code == 404
    assert tara.get(tokens_url(ghost)).status_code == 404
    operator = OperatorFactory()
    assert tara.get(tokens_url(operator.pk)).status_code == 404
    assert tara.get(resume_url(ghost, uuid.uuid4())).status_code == 404


def test_a_tenant_the_member_is_not_in_is_404():
    member = MemberFactory(tenants=[TenantFactory()])
    context = {"surface": "tara", "session_id": "s-1", "tenant_id": str(TenantFactory().pk)}
    response = put(
        surface_client("tara"), member.pk, token_body(member.pk, surface_context=context)
    )
    assert response.status_code == 404


def test_a_surface_reads_its_own_tokens_and_the_shell_reads_all():
    member = MemberFactory()
    write(member, surface="tara", scope_key="session:t")
    write(member, surface="nisaba", scope_key="notebook:n", posture="reading")
    tara = surface_client("tara")
    assert [
        t["surface_context"]["surface"] for t in tara.get(tokens_url(member.pk)).json()["results"]
    ] == ["tara"]
    assert tara.get(tokens_url(member.pk), {"surface": "nisaba"}).status_code == 403
    shell = surface_client("shell")
    assert len(shell.get(tokens_url(member.pk)).json()["results"]) == 2
    only = shell.get(tokens_url(member.pk), {"surface": "nisaba"}).json()["results"]
    assert [t["scope_key"] for t in only] == ["notebook:n"]


# --- member reads and isolation -------------------------------------------------------------


def test_member_a_cannot_read_member_bs_tokens():
    ada, ben = MemberFactory(), MemberFactory()
    bens = write(ben, scope_key="session:ben").answer["id"]
    adas = write(ada, scope_key="session:ada").answer["id"]
    client = bearer_client(ada)
    assert [t["id"] for t in client.get(ME).json()["results"]] == [adas]
    assert client.get(me_resume_url(bens)).status_code == 404
    assert client.get(me_resume_url(uuid.uuid4())).status_code == 404
    assert client.get(me_resume_url(adas)).status_code == 200
    # a surface asking for Ada's card under Ben's id gets nothing either
    tara = surface_client("tara")
    assert tara.get(resume_url(ben.pk, adas)).status_code == 404
    assert [t["id"] for t in tara.get(tokens_url(ben.pk)).json()["results"]] == [bens]


@pytest.mark.parametrize(
    ("limit", "status"), [("0", 400), ("51", 400), ("x", 400), ("1", 200), ("50", 200)]
)
def test_limit_is_1_to_50(limit, status):
    response = bearer_client(MemberFactory()).get(ME, {"limit": limit})
    assert response.status_code == status
    if status == 400:
        assert "limit" in response.json()["error"]["fields"]


def test_me_lists_the_five_most_recent_by_default():
    member = MemberFactory()
    base = timezone.now()
    for minute in range(7):
        write(member, now=base + timedelta(minutes=minute), scope_key=f"session:{minute}")
    client = bearer_client(member)
    results = client.get(ME).json()["results"]
    assert [t["scope_key"] for t in results] == [f"session:{m}" for m in (6, 5, 4, 3, 2)]
    assert len(client.get(ME, {"limit": 2}).json()["results"]) == 2
    assert len(client.get(ME, {"limit": 50}).json()["results"]) == 7


def test_a_bad_device_id_query_is_400():
    response = bearer_client(MemberFactory()).get(ME, {"device_id": "my phone"})
    assert response.status_code == 400 and "device_id" in response.json()["error"]["fields"]


# --- notices and resume ---------------------------------------------------------------------


def test_the_losing_device_reads_its_notice_once():
    member = MemberFactory()
    tara = surface_client("tara")
    laptop = put(tara, member.pk, token_body(member.pk, device_id="laptop-1")).json()
    phone_body = token_body(
        member.pk,
        device_id="phone-1",
        anchor_ref={"surface": "tara", "anchor_id": "chapter-4", "cursor": "00:14:35"},
    )
    phone = put(tara, member.pk, phone_body).json()
    # the winner sees no notice
    assert tara.get(tokens_url(member.pk), {"device_id": "phone-1"}).json()["notices"] == []
    # the loser's next read carries it, with its own place kept
    read = tara.get(tokens_url(member.pk), {"device_id": "laptop-1"}).json()
    [notice] = read["notices"]
    assert notice["kind"] == "also-playing-elsewhere"
    assert notice["message"] == "This was also playing on your other device."
    assert notice["token"] == phone["id"] == laptop["id"]
    assert notice["superseded"] == {
        "token_id": laptop["token_id"],
        "anchor_ref": {"surface": "tara", "anchor_id": "chapter-4", "cursor": "00:14:32"},
        "posture": "listening",
    }
    assert notice["winning"]["device_id"] == "phone-1"
    assert notice["winning"]["token_id"] == phone["token_id"]
    assert [t["anchor_ref"]["cursor"] for t in read["results"]] == ["00:14:35"]
    # and only once
    assert tara.get(tokens_url(member.pk), {"device_id": "laptop-1"}).json()["notices"] == []
    [delivered] = audit_events("continuity.notice.delivered", member)
    assert delivered.actor_role == "tara"


def test_a_surface_only_receives_notices_of_its_own_surface_and_its_own_writes():
    member = MemberFactory()
    now = timezone.now()
    laptop_app = ServiceClientFactory(consumer="nisaba")
    write(
        member,
        now=now,
        surface="nisaba",
        device_id="laptop-1",
        posture="reading",
        client=laptop_app,
    )
    write(member, now=now + timedelta(seconds=1), surface="nisaba", device_id="phone-1")
    laptop = {"device_id": "laptop-1"}
    tara = surface_client("tara")
    assert tara.get(tokens_url(member.pk), laptop).json()["notices"] == []
    # another nisaba client naming the laptop's device id is not the laptop
    assert surface_client("nisaba").get(tokens_url(member.pk), laptop).json()["notices"] == []
    notices = bearer_client(laptop_app).get(tokens_url(member.pk), laptop).json()["notices"]
    assert len(notices) == 1


def test_resume_returns_anchor_and_cursor_to_continue_mid_segment():
    member = MemberFactory()
    card = write(member).answer
    expected = {
        "id": card["id"],
        "token_id": card["token_id"],
        "surface": "tara",
        "scope_key": "session:s-1",
        "session_id": "s-1",
        "anchor_ref": {"surface": "tara", "anchor_id": "chapter-4", "cursor": "00:14:32"},
        "posture": "listening",
        "device_id": "laptop-1",
        "recorded_at": card["recorded_at"],
        "mid_segment": True,
    }
    assert surface_client("tara").get(resume_url(member.pk, card["id"])).json() == expected
    assert bearer_client(member).get(me_resume_url(card["id"])).json() == expected
    # another surface's card is not the caller's to resume; the shell may resume any
    assert surface_client("psyche").get(resume_url(member.pk, card["id"])).status_code == 404
    assert surface_client("shell").get(resume_url(member.pk, card["id"])).status_code == 200


def test_consent_guard_over_http_before_and_after_withdrawal(django_capture_on_commit_callbacks):
    member = MemberFactory()
    grant = record(member, "cross_device").event
    body = token_body(
        member.pk,
        surface="psyche",
        device_id="phone-1",
        sensitive_categories=["mental_health"],
        cross_device_consent_id=str(grant.pk),
    )
    psyche = surface_client("psyche")
    card = put(psyche, member.pk, body).json()
    shell, me = surface_client("shell"), bearer_client(member)
    laptop = {"device_id": "laptop-1"}
    # before: readable everywhere
    before = shell.get(tokens_url(member.pk), laptop).json()
    assert len(before["results"]) == 1 and before["withheld"] == {}
    assert len(me.get(ME).json()["results"]) == 1
    assert shell.get(resume_url(member.pk, card["id"]), laptop).status_code == 200
    # when the member withdraws cross-device consent
    with django_capture_on_commit_callbacks(execute=True):
        me.post(
            "/api/v1/me/consents/events/",
            {"consent_type": "cross_device", "kind": "withdrawal"},
            format="json",
        )
    # then: other devices and the browser see nothing; the phone keeps its own place
    hidden = shell.get(tokens_url(member.pk), laptop).json()
    assert hidden["results"] == []
    assert hidden["withheld"] == {"cross-device-consent-required": 1}
    assert me.get(ME).json()["results"] == []
    assert me.get(me_resume_url(card["id"])).status_code == 404
    assert shell.get(resume_url(member.pk, card["id"]), laptop).status_code == 404
    phone = {"device_id": "phone-1"}
    own = psyche.get(tokens_url(member.pk), phone).json()
    assert len(own["results"]) == 1 and own["withheld"] == {}
    assert psyche.get(resume_url(member.pk, card["id"]), phone).status_code == 200
    # the shell naming the phone's device id is not the phone; nor is the browser
    assert shell.get(tokens_url(member.pk), phone).json()["results"] == []
    assert shell.get(resume_url(member.pk, card["id"]), phone).status_code == 404
    assert me.get(ME, phone).json()["results"] == []
    assert len(audit_events("continuity.cross_device.ended", member)) == 1


def test_the_documented_request_is_the_contract():
    from continuity.apis import MemberContinuationTokenApi
    from continuity.contracts import ContinuationToken
    from iris_site.api.contracts import operation_contract

    assert operation_contract(MemberContinuationTokenApi.put).body is ContinuationToken
