"""Cursor pagination: a cursor is client input, so a bad one is a 400, never a 404 or 500."""

import base64

import pytest

from iris_site.enums import OperatorRole
from tests.conftest import bearer_client
from tests.iris_site.factories import OperatorFactory
from tests.memory.factories import consenting_member

pytestmark = pytest.mark.django_db

AUDIT_EVENTS = "/api/v1/operator/audit-events/"
CONSENT_EVENTS = "/api/v1/me/consents/events/"
MEMORIES = "/api/v1/me/memories/"


def forged(querystring: str) -> str:
    return base64.b64encode(querystring.encode()).decode()


def assert_invalid_cursor(response) -> None:
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "invalid"
    assert error["fields"] == {"cursor": ["Invalid cursor"]}


@pytest.mark.parametrize("cursor", ["garbage", "YQ", forged("o=-1")])
def test_a_cursor_that_does_not_decode_is_400_on_cursor(cursor):
    """Regression (schemathesis): DRF answers an undecodable cursor with 404."""
    # given
    client = bearer_client(consenting_member())
    # when
    response = client.get(MEMORIES, {"cursor": cursor})
    # then
    assert_invalid_cursor(response)


@pytest.mark.parametrize("position", ["abc", "2026-13-45", "1.5"])
def test_a_forged_position_on_an_integer_ordering_is_400_not_500(position):
    """Regression (schemathesis): DRF hands the position to `filter()`, and a non-number
    on the `sequence` ordering raised ValueError (a 500)."""
    # given
    operator = bearer_client(OperatorFactory(role=OperatorRole.ADMIN))
    member = bearer_client(consenting_member())
    cursor = forged(f"p={position}")
    # when
    responses = [
        operator.get(AUDIT_EVENTS, {"cursor": cursor}),
        member.get(CONSENT_EVENTS, {"cursor": cursor}),
    ]
    # then
    for response in responses:
        assert_invalid_cursor(response)


def test_a_forged_position_on_a_timestamp_ordering_is_400():
    # given
    client = bearer_client(consenting_member())
    # when
    response = client.get(MEMORIES, {"cursor": forged("p=yesterday")})
    # then
    assert_invalid_cursor(response)


def test_the_next_link_still_pages_through_results():
    # given
    client = bearer_client(consenting_member())
    first = client.get(CONSENT_EVENTS, {"page_size": 1}).json()
    # when
    second = client.get(first["next"])
    # then
    assert second.status_code == 200
    assert second.json()["results"] and second.json()["results"] != first["results"]
