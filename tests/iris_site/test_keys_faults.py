"""Encryption at rest, its faults over real HTTP: a key store that cannot be reached makes
reads and writes fail closed with a 503 (the error envelope under `/api/`, a plain page
elsewhere), never a 500; a sealed value altered in the database reads as unavailable —
no 500, no plaintext — and is an operator alert (a counter, a critical audit event once
per request, ids and columns only)."""

import base64
from contextlib import contextmanager

import pytest
from django.db import connection

from hierarchy.models import ShortTermMemory
from iris_site.audit.actions import AuditAction
from iris_site.keys import envelope
from iris_site.models import AuditEvent
from iris_site.services import token_issue
from tests.conftest import TEST_METRICS, http_request
from tests.hierarchy.stm_factories import member_with, write
from tests.iris_site.factories import ServiceClientFactory
from tests.memory.factories import remember

pytestmark = pytest.mark.django_db(transaction=True)
SECRET_WORDS = "quokkazine twice daily"


@pytest.fixture
def token():
    _, raw = token_issue(owner=ServiceClientFactory(consumer="assistant"))
    return raw


@contextmanager
def key_store_down(settings, tmp_path):
    """The key store's file is unusable (its folder is a file): every call fails."""
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    before = settings.IRIS_KEYSTORE_PATH
    settings.IRIS_KEYSTORE_PATH = str(blocker / "keystore.sqlite3")
    envelope.cache_clear()
    envelope._store.cache_clear()
    try:
        yield
    finally:
        settings.IRIS_KEYSTORE_PATH = before
        envelope.cache_clear()
        envelope._store.cache_clear()


def _api(member, path: str) -> str:
    return f"/api/v1/members/{member.pk}/{path}"


def assert_key_store_503(response) -> None:
    assert response.status == 503, response.body
    assert response.body["error"]["code"] == "key_store_unavailable"
    assert "key store" in response.body["error"]["message"]
    assert response.headers.get("Retry-After")


def test_recall_and_remember_fail_closed_with_503_when_the_key_store_is_down(
    live_server, token, settings, tmp_path
):
    member = member_with()
    remember(member, subject="meds", body=SECRET_WORDS)
    write(member, content=SECRET_WORDS)
    with key_store_down(settings, tmp_path):
        recall = http_request(
            live_server.url + _api(member, "recall/"),
            method="POST",
            token=token,
            body={"surface": "assistant", "scope": {"kind": "profile"}, "query": "quokkazine"},
        )
        remembered = http_request(
            live_server.url + _api(member, "memories/"),
            method="POST",
            token=token,
            body={
                "scope": {"kind": "session", "session_id": "s-1"},
                "category": "preference",
                "subject": "coffee",
                "body": "likes oat milk",
                "origin": "model-inferred",
            },
        )
        short_term = http_request(
            live_server.url + _api(member, "short-term/?scope_id=s-1"), token=token
        )
    assert_key_store_503(recall)
    assert_key_store_503(remembered)
    assert_key_store_503(short_term)
    for response in (recall, remembered, short_term):
        assert SECRET_WORDS not in str(response.body)


def test_a_page_answers_a_plain_503_when_the_key_store_is_down(client, settings, tmp_path):
    member = member_with()
    remember(member, subject="meds", body=SECRET_WORDS)
    client.force_login(member)
    with key_store_down(settings, tmp_path):
        response = client.get("/profile/memory/")
    assert response.status_code == 503
    assert response["Content-Type"].startswith("text/html")
    assert b"key store" in response.content
    assert SECRET_WORDS.encode() not in response.content
    assert response["Retry-After"]


def _flip(token: str) -> str:
    """The sealed value with one ciphertext byte altered (after header and nonce)."""
    payload = token[len(envelope.PREFIX) :]
    raw = bytearray(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    raw[40 if len(raw) > 40 else -1] ^= 0x01
    return envelope.PREFIX + base64.urlsafe_b64encode(bytes(raw)).decode().rstrip("=")


def _tamper(table: str, column: str, pk) -> None:
    key = pk.hex if connection.vendor == "sqlite" else pk
    with connection.cursor() as cursor:
        cursor.execute(f'SELECT "{column}" FROM "{table}" WHERE id = %s', [key])
        (stored,) = cursor.fetchone()
        assert stored.startswith(envelope.PREFIX)
        cursor.execute(f'UPDATE "{table}" SET "{column}" = %s WHERE id = %s', [_flip(stored), key])


def _unreadable_count() -> int:
    data = TEST_METRICS.get_metrics_data()
    total = 0
    for resource in data.resource_metrics if data else ():
        for scope in resource.scope_metrics:
            for metric in scope.metrics:
                if metric.name == "iris.keys.ciphertext_unreadable":
                    total += sum(point.value for point in metric.data.data_points)
    return total


def test_a_tampered_short_term_row_reads_as_unavailable_alerted_never_500(live_server, token):
    member = member_with()
    row = write(member, content=SECRET_WORDS)
    kept = write(member, content="likes oat milk")
    _tamper(ShortTermMemory._meta.db_table, "content", row.pk)
    envelope.cache_clear()
    _unreadable_count()  # the counter from here on (delta)

    response = http_request(live_server.url + _api(member, "short-term/?scope_id=s-1"), token=token)

    assert response.status == 200, response.body
    assert "quokkazine" not in str(response.body)
    contents = {r["id"]: r["content"] for r in response.body["results"]}
    assert contents[str(kept.pk)] == "likes oat milk"
    assert contents.get(str(row.pk), "") == ""
    [event] = AuditEvent.objects.filter(
        target_member_id=member.pk, action=AuditAction.IRIS_SITE_SEALED_VALUE_UNREADABLE
    )
    assert event.severity == "critical"
    assert event.payload == {"columns": ["hierarchy_shorttermmemory.content"], "count": 1}
    assert _unreadable_count() >= 1


def test_a_tampered_memory_body_reads_as_unavailable_never_500(live_server, token):
    member = member_with()
    entry = remember(member, subject="meds", body=SECRET_WORDS).entry
    table = entry._meta.db_table
    column = entry._meta.get_field("body").column
    with connection.cursor() as cursor:
        cursor.execute(
            f'SELECT "{column}" FROM "{table}" WHERE id = %s',
            [entry.pk.hex if connection.vendor == "sqlite" else entry.pk],
        )
        (stored,) = cursor.fetchone()
    assert stored.startswith(envelope.PREFIX)
    _tamper(table, column, entry.pk)
    envelope.cache_clear()

    listed = http_request(live_server.url + _api(member, "memories/"), token=token)
    recalled = http_request(
        live_server.url + _api(member, "recall/"),
        method="POST",
        token=token,
        body={"surface": "assistant", "scope": {"kind": "profile"}, "query": "quokkazine"},
    )

    for response in (listed, recalled):
        assert response.status < 500, response.body
        assert "quokkazine" not in str(response.body)
    assert AuditEvent.objects.filter(
        target_member_id=member.pk, action=AuditAction.IRIS_SITE_SEALED_VALUE_UNREADABLE
    ).exists()
