"""Hostile and odd input: every body, path and query string a client can send gets a
4xx in the error envelope (never a 500), text is stored exactly as sent, and pages
escape whatever members and surfaces wrote."""

import json
import re
import urllib.error
import urllib.request
import uuid

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client
from rest_framework.test import APIClient

from continuity.models import ContinuationToken
from hierarchy.models import ShortTermMemory
from iris_site.api.parsers import MAX_JSON_DEPTH, JSONParser
from memory.models import ConversationTurn, MemoryEntry
from tests.conftest import bearer_client
from tests.continuity.factories import token_body
from tests.iris_site.factories import OperatorFactory, ServiceClientFactory
from tests.memory.factories import consenting_member

pytestmark = pytest.mark.django_db

ME = "/api/v1/me/memories/"
LIMIT = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
SCRIPT = "<script>alert('xss')</script>"
ESCAPED_SCRIPT = "&lt;script&gt;alert(&#x27;xss&#x27;)&lt;/script&gt;"
# Text a member might type that would be dangerous if any layer interpreted it.
INJECTIONS = [
    SCRIPT,
    "<img src=x onerror=alert(1)>",
    '"><svg onload=alert(1)>',
    "javascript:alert(1)",
    "'; DROP TABLE memory_memoryentry; --",
    '" OR 1=1 --',
    "Robert'); DELETE FROM iris_site_user WHERE ('1'='1",
    "%_\\ LIKE wildcards 100%",
    "{{ request.user.password }} {% csrf_token %}",
    "${7*7} #{7*7}",
]
# Text that must come back exactly, byte for byte, on SQLite and PostgreSQL.
UNICODE_EDGES = [
    "right-to-left override \u202egnp.exe",
    "zero\u200bwidth\u200cnon\u200djoiner\ufeffbom",
    "combining: e\u0301 a\u0300 Z\u0351\u0325\u0330 n\u0303",
    "skin tones 👍🏽 👩🏿‍🔬 and ZWJ family 👨‍👩‍👧‍👦 flag 🏳️‍🌈",
    "astral plane \U0001d518\U0001d52b\U0001d526 \U00013000 \U0001f004 \U00010348",
    "mixed scripts: Ελληνικά, русский, עברית, العربية, 日本語, हिन्दी",
    "line\nbreaks\r\nand\ttabs",
    "emoji only 🤷‍♀️",
]


def error(response) -> dict:
    body = response.json()
    assert set(body) == {"error"}, body
    assert set(body["error"]) == {"code", "message", "fields"}, body
    return body["error"]


def member_api():
    member = consenting_member()
    return member, bearer_client(member)


def surface(consumer: str = "assistant") -> APIClient:
    return bearer_client(ServiceClientFactory(consumer=consumer))


def memory_body(text: str) -> dict:
    return {"scope": {"kind": "profile"}, "category": "preference", "body": text}


# --- Oversized bodies ----------------------------------------------------------------------


def test_an_oversized_api_body_is_413_before_parsing():
    _, client = member_api()
    body = json.dumps(memory_body("x" * (LIMIT + 10)))
    response = client.post(ME, body, content_type="application/json")
    assert response.status_code == 413
    assert error(response)["code"] == "request_too_large"
    assert not MemoryEntry.objects.exists()


def test_a_body_at_the_limit_is_parsed_and_judged_on_its_content():
    _, client = member_api()
    text = json.dumps(memory_body("x"))
    padded = text[:-1] + " " * (LIMIT - len(text)) + "}"
    assert len(padded) == LIMIT
    response = client.post(ME, padded, content_type="application/json")
    assert response.status_code == 201, response.content


@pytest.mark.parametrize(
    "path", ["/accounts/login/", "/profile/memory/clear/", "/profile/memory/data/export/"]
)
def test_an_oversized_form_post_to_a_page_is_413(path):
    member = consenting_member()
    client = Client()
    client.force_login(member)
    response = client.post(
        path,
        "a=" + "x" * (LIMIT + 1),
        content_type="application/x-www-form-urlencoded",
    )
    assert response.status_code == 413
    assert error(response)["code"] == "request_too_large"


def _raw_http(url: str, data: bytes, headers: dict) -> tuple[int, dict, bytes]:
    request = urllib.request.Request(url, data=data, method="POST", headers=headers)  # noqa: S310
    try:
        with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as failure:
        return failure.code, dict(failure.headers), failure.read()


def test_oversized_bodies_are_413_over_real_http(live_server):
    # given
    member = consenting_member()
    from iris_site.services import token_issue

    _, token = token_issue(owner=member)
    big = json.dumps(memory_body("x" * (2 * LIMIT))).encode()
    # when
    api_status, _, api_raw = _raw_http(
        f"{live_server.url}{ME}",
        big,
        {"Content-Type": "application/json", "Authorization": f"Bearer {token}"},
    )
    page_status, _, page_raw = _raw_http(
        f"{live_server.url}/accounts/login/",
        b"username=a&password=" + b"x" * (2 * LIMIT),
        {"Content-Type": "application/x-www-form-urlencoded"},
    )
    # then
    assert api_status == 413 and json.loads(api_raw)["error"]["code"] == "request_too_large"
    assert page_status == 413 and json.loads(page_raw)["error"]["code"] == "request_too_large"
    assert not MemoryEntry.objects.exists()


# --- Malformed JSON ---------------------------------------------------------------------------


@pytest.mark.parametrize("opener", ["[", '{"a":'])
def test_json_nested_a_hundred_thousand_levels_is_400_not_500(opener):
    _, client = member_api()
    response = client.post(ME, opener * 100_000, content_type="application/json")
    assert response.status_code == 400
    assert error(response)["code"] == "malformed_request"


def test_deeply_nested_but_well_formed_json_is_400():
    _, client = member_api()
    nested: object = "deep"
    for _ in range(MAX_JSON_DEPTH + 1):
        nested = [nested]
    response = client.post(ME, {**memory_body("x"), "extra": nested}, format="json")
    assert response.status_code == 400
    assert "nested deeper" in error(response)["message"]


def test_the_parser_accepts_the_maximum_depth_and_refuses_one_more():
    import io

    def document(depth: int) -> bytes:
        return ("[" * depth + "]" * depth).encode()

    parser = JSONParser()
    assert parser.parse(io.BytesIO(document(MAX_JSON_DEPTH))) is not None
    with pytest.raises(Exception, match="nested deeper"):
        parser.parse(io.BytesIO(document(MAX_JSON_DEPTH + 1)))


@pytest.mark.parametrize(
    "raw",
    [
        b'{"scope": {"kind": "profile"}, "category": "preference", "body": "caf\xe9"}',
        b'{"body": "\xff\xfe\xfd"}',
        b"\xef\xbb\xbf\xc3\x28",
        b'{"body": "truncated \xe2\x82"}',
    ],
)
def test_a_body_that_is_not_utf8_is_400(raw):
    _, client = member_api()
    response = client.post(ME, raw, content_type="application/json")
    assert response.status_code == 400
    assert error(response)["code"] == "malformed_request"
    assert not MemoryEntry.objects.exists()


@pytest.mark.parametrize(
    "raw",
    [b"", b"null", b"[]", b'"text"', b"{", b"NaN", b'{"body": Infinity}', b"1" * 5000],
)
def test_malformed_or_non_object_json_is_400(raw):
    _, client = member_api()
    response = client.post(ME, raw, content_type="application/json")
    assert response.status_code == 400, response.content
    error(response)


def test_an_unknown_charset_is_not_a_500():
    _, client = member_api()
    body = json.dumps(memory_body("charset")).encode()
    response = client.post(ME, body, content_type="application/json; charset=no-such-codec")
    assert response.status_code in {201, 400, 415}, response.content


@pytest.mark.parametrize(
    "content_type",
    [
        "text/plain",
        "application/xml",
        "text/html",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=xyz",
        "application/json-patch+json",
    ],
)
def test_a_wrong_content_type_is_415_with_the_envelope(content_type):
    _, client = member_api()
    response = client.post(ME, b"body=hello", content_type=content_type)
    assert response.status_code == 415
    assert error(response)["code"] == "unsupported_media_type"
    assert not MemoryEntry.objects.exists()


# --- Paths and query strings --------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/me/memories/?q=%ff%fe",
        "/api/v1/me/memories/?category=%c3%28",
        "/profile/memory/?q=%ed%a0%80",
        "/api/v1/me/memories/?q=%00",
        "/api/v1/me/memories/?cursor=%00",
        "/api/v1/me/continuation-tokens/?limit=%00",
        "/profile/memory/?q=a%00b",
        "/api/v1/me/memories/%00/",
    ],
)
def test_a_path_or_query_that_is_not_utf8_text_is_400(path):
    member = consenting_member()
    client = Client()
    client.force_login(member)
    response = client.get(path)
    assert response.status_code == 400
    assert error(response)["code"] == "malformed_request"


def test_a_path_that_is_not_utf8_is_a_clean_404_over_real_http(live_server):
    # Django re-quotes broken bytes in the path (%FF), so no route matches: 404, not 500.
    for path in ("/api/v1/me/memories/%ff/", "/profile/memory/%c3%28/", "/healthz%ed%a0%80"):
        request = urllib.request.Request(f"{live_server.url}{path}")  # noqa: S310
        try:
            with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310
                status, raw = response.status, response.read()
        except urllib.error.HTTPError as failure:
            status, raw = failure.code, failure.read()
        assert status == 404, (path, status)
        if path.startswith("/api/"):
            assert json.loads(raw)["error"]["code"] == "not_found"


@pytest.mark.parametrize(
    "query",
    ["q=%25", "q=%5C", "q=' OR 1=1 --", "category=nope", "cursor=garbage", "q=" + "a" * 5000],
)
def test_odd_but_valid_query_strings_are_never_500(query):
    _, client = member_api()
    response = client.get(f"{ME}?{query}")
    assert response.status_code in {200, 400, 404}, response.content
    if response.status_code != 200:
        error(response)


# --- NUL and surrogates -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (memory_body("nul \x00 byte"), "body"),
        ({**memory_body("fine"), "subject": "\x00"}, "subject"),
        (memory_body("lone surrogate \ud800"), "body"),
        ({**memory_body("fine"), "scope": {"kind": "profile", "\x00": 1}}, "scope"),
    ],
)
def test_nul_and_lone_surrogates_are_400_on_every_database(body, field):
    _, client = member_api()
    raw = json.dumps(body)  # \u0000 and \ud800 escapes: valid JSON, unstorable text
    response = client.post(ME, raw, content_type="application/json")
    assert response.status_code == 400, response.content
    assert any(key.startswith(field) for key in error(response)["fields"])
    assert not MemoryEntry.objects.exists()


@pytest.mark.parametrize(
    ("operation", "body", "field"),
    [
        (
            "recall/",
            '{"surface": "assistant", "scope": {"kind": "profile"}, "limit": 1e999}',
            "limit",
        ),
        (
            "recall/",
            '{"surface": "assistant", "scope": {"kind": "profile"}, "as_of": -1e999}',
            "as_of",
        ),
        ("context-bundle/", '{"scope_id": "s-1", "budget": 1e999}', "budget"),
        (
            "short-term/",
            '{"scope_kind": "user_session", "scope_id": "s-1", "ttl_seconds": 1e999}',
            "ttl_seconds",
        ),
    ],
)
def test_a_number_too_large_for_a_float_is_400_not_500(operation, body, field):
    """Found by review: `1e999` is valid JSON that Python reads as infinity; the contracts
    re-serialise the body and failed there, a 500 with no envelope. The parser refuses it,
    naming its place."""
    member = consenting_member()
    response = surface().post(
        f"/api/v1/members/{member.pk}/{operation}", body, content_type="application/json"
    )
    assert response.status_code == 400, response.content
    assert field in error(response)["fields"]


def test_nul_in_any_service_text_field_is_400():
    member = consenting_member()
    client = surface("tara")
    stm = client.post(
        f"/api/v1/members/{member.pk}/short-term/",
        {
            "scope_kind": "user_session",
            "scope_id": "s-1",
            "category": "preference",
            "content": "a\x00b",
        },
        format="json",
    )
    token = client.put(
        f"/api/v1/members/{member.pk}/continuation-tokens/",
        token_body(member.pk, device_id="laptop\x001"),
        format="json",
    )
    turn = surface().post(
        f"/api/v1/members/{member.pk}/sessions/s-1/turns/",
        {"speaker": "member", "text": "a\x00b"},
        format="json",
    )
    for response in (stm, token, turn):
        assert response.status_code == 400, response.content
        error(response)
    assert not ShortTermMemory.objects.exists()
    assert not ContinuationToken.objects.exists()
    assert not ConversationTurn.objects.exists()


# --- Unicode round trips ----------------------------------------------------------------------


@pytest.mark.parametrize("text", UNICODE_EDGES)
def test_unicode_edge_cases_round_trip_exactly(text):
    # given
    _, client = member_api()
    # when
    created = client.post(ME, {**memory_body(text), "subject": text[:200]}, format="json")
    # then
    assert created.status_code == 201, created.content
    fetched = client.get(f"{ME}{created.json()['id']}/").json()
    assert fetched["body"] == text and fetched["subject"] == text[:200]
    stored = MemoryEntry.objects.get(pk=created.json()["id"])
    assert stored.body == text


@pytest.mark.parametrize("text", UNICODE_EDGES)
def test_unicode_round_trips_through_short_term_memory(text):
    member = consenting_member()
    client = surface()
    created = client.post(
        f"/api/v1/members/{member.pk}/short-term/",
        {
            "scope_kind": "user_session",
            "scope_id": "s-1",
            "category": "preference",
            "content": text,
        },
        format="json",
    )
    assert created.status_code == 201, created.content
    assert created.json()["content"] == text
    assert ShortTermMemory.objects.get(pk=created.json()["id"]).content == text


# --- Injection payloads: stored verbatim, escaped everywhere -----------------------------------


def _member_pages(client: Client, entry_ids) -> dict[str, str]:
    paths = [
        "/profile/memory/",
        "/profile/memory/consents/",
        "/profile/memory/notices/",
        "/profile/memory/data/",
    ]
    for entry_id in entry_ids:
        paths += [
            f"/profile/memory/{entry_id}/",
            f"/profile/memory/{entry_id}/history/",
            f"/profile/memory/{entry_id}/edit/",
        ]
    pages = {}
    for path in paths:
        response = client.get(path)
        assert response.status_code == 200, (path, response.status_code)
        pages[path] = response.content.decode()
    return pages


# Markup the payloads would create if a page emitted them unescaped.
LIVE_MARKUP = re.compile(r"<script>alert|<img src=x onerror|<svg onload|\"><svg", re.IGNORECASE)


def assert_escaped(html: str, where: str) -> None:
    for payload in INJECTIONS:
        if "<" in payload or ">" in payload:
            assert payload not in html, (where, payload)
    assert not LIVE_MARKUP.search(html), (where, LIVE_MARKUP.search(html))


@pytest.mark.parametrize("payload", INJECTIONS)
def test_injection_payloads_in_memory_text_are_stored_verbatim(payload):
    # given
    _, client = member_api()
    body = {
        **memory_body(payload),
        "subject": payload,
        "multi_actor": {"actor_name": "Sam", "relationship_note": payload},
    }
    # when
    created = client.post(ME, body, format="json")
    edited = client.patch(
        f"{ME}{created.json()['id']}/", {"body": payload + " (edited)"}, format="json"
    )
    # then
    assert created.status_code == 201, created.content
    assert edited.status_code == 200, edited.content
    entry = MemoryEntry.objects.get(pk=created.json()["id"])
    assert entry.subject == payload and entry.body == payload + " (edited)"
    listed = client.get(ME, {"q": payload}).status_code
    assert listed in {200, 400}
    assert MemoryEntry.objects.count() == 1  # nothing executed, nothing dropped


def test_member_pages_escape_everything_members_and_surfaces_wrote():
    # given: every injection in every member-writable text that a page renders
    member, client = member_api()
    ids = []
    for payload in INJECTIONS:
        created = client.post(
            ME,
            {
                **memory_body(payload),
                "subject": payload,
                "multi_actor": {"actor_name": "Sam", "relationship_note": payload},
            },
            format="json",
        )
        assert created.status_code == 201, created.content
        ids.append(created.json()["id"])
        client.patch(f"{ME}{ids[-1]}/", {"body": payload + "!"}, format="json")
    tara = surface("tara")
    for index, payload in enumerate(p for p in INJECTIONS if " " not in p):
        response = tara.put(
            f"/api/v1/members/{member.pk}/continuation-tokens/",
            token_body(
                member.pk,
                device_id=f"{payload}{index}",
                anchor_ref={"surface": "tara", "anchor_id": payload, "cursor": payload},
            ),
            format="json",
        )
        assert response.status_code in {200, 201}, response.content
    page_client = Client()
    page_client.force_login(member)
    # when
    pages = _member_pages(page_client, ids)
    # then
    for path, html in pages.items():
        assert_escaped(html, path)
    assert ESCAPED_SCRIPT in pages["/profile/memory/"]
    assert ESCAPED_SCRIPT in pages[f"/profile/memory/{ids[0]}/"]
    assert ESCAPED_SCRIPT in pages[f"/profile/memory/{ids[0]}/history/"]


def test_continuation_token_text_fields_are_stored_verbatim():
    member = consenting_member()
    payload = "<script>alert(1)</script>"
    body = token_body(
        member.pk,
        device_id=payload,
        anchor_ref={"surface": "tara", "anchor_id": payload, "cursor": "';DROP--"},
        idempotency_key="k-<b>",
    )
    response = surface("tara").put(
        f"/api/v1/members/{member.pk}/continuation-tokens/", body, format="json"
    )
    assert response.status_code == 201, response.content
    answer = response.json()
    assert answer["device_id"] == payload and answer["anchor_ref"]["anchor_id"] == payload
    assert answer["anchor_ref"]["cursor"] == "';DROP--"


def test_short_term_content_is_stored_verbatim_and_the_dashboard_escapes_everything():
    # given
    member = consenting_member()
    client = surface()
    for payload in INJECTIONS:
        response = client.post(
            f"/api/v1/members/{member.pk}/short-term/",
            {
                "scope_kind": "user_session",
                "scope_id": "s-1",
                "category": "preference",
                "content": payload,
            },
            format="json",
        )
        assert response.status_code == 201, response.content
        assert response.json()["content"] == payload
    operator = OperatorFactory(role="admin")
    page_client = Client()
    page_client.force_login(operator)
    # when
    dashboard = page_client.get("/dashboard/admin/memory-hierarchy")
    # then
    assert dashboard.status_code == 200
    html = dashboard.content.decode()
    assert_escaped(html, "dashboard")
    assert set(ShortTermMemory.objects.values_list("content", flat=True)) == set(INJECTIONS)


def test_a_data_rights_appeal_reason_is_stored_verbatim_and_escaped():
    # given: an access request that has finished, so it can be contested
    member, client = member_api()
    submitted = client.post(
        "/api/v1/me/data-rights/",
        {"kind": "access", "payload": {"include_operator_actions": False}},
        format="json",
    )
    assert submitted.status_code == 201, submitted.content
    request_id = submitted.json()["id"]
    # when: any text field of the submission (an unknown payload key) carries a payload
    injected = client.post(
        "/api/v1/me/data-rights/",
        {"kind": "access", "payload": {SCRIPT: SCRIPT}},
        format="json",
    )
    appeal = client.post(
        f"/api/v1/me/data-rights/{request_id}/appeal/", {"reason": SCRIPT}, format="json"
    )
    # then: refused or stored, never a 500, and the page shows no live markup
    assert injected.status_code == 400
    assert appeal.status_code in {200, 201, 409}, appeal.content
    page_client = Client()
    page_client.force_login(member)
    html = page_client.get("/profile/memory/data/").content.decode()
    assert SCRIPT not in html


def test_the_login_page_escapes_what_was_typed():
    response = Client().post(
        "/accounts/login/", {"username": SCRIPT, "password": "x", "next": '"><script>x</script>'}
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert SCRIPT not in html and '"><script>x</script>' not in html


def test_unknown_uuids_and_odd_ids_in_paths_are_404_not_500():
    _, client = member_api()
    for path in (f"{ME}{uuid.uuid4()}/", f"{ME}not-a-uuid/", f"{ME}'%20OR%201=1/"):
        response = client.get(path)
        assert response.status_code == 404, (path, response.status_code)
        error(response)


def test_a_time_zone_offset_the_database_cannot_compare_is_400_not_503():
    """ISO 8601 allows -17:45; PostgreSQL refuses offsets beyond ±15:59 with a DataError,
    which is the client's value, not an outage (found by the long fuzz run)."""
    client = bearer_client(OperatorFactory(role="admin"))
    response = client.get(
        "/api/v1/operator/audit-events/", {"occurred_before": "0671-02-28T06:42:50-17:45"}
    )
    if connection.vendor == "postgresql":
        assert response.status_code == 400
        assert error(response)["code"] == "invalid"
    else:  # SQLite compares the instant converted to UTC
        assert response.status_code == 200


def test_an_accept_header_asking_for_no_json_is_406_with_the_envelope():
    _, client = member_api()
    response = client.get(ME, HTTP_ACCEPT="text/csv")
    assert response.status_code == 406
    assert error(response)["code"] == "not_acceptable"
