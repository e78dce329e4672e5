"""Members learn of every inspection that let an operator see their memory: sensitive
ones through their delivered notice, ordinary ones once closed; on the notices API
(`GET /api/v1/me/notices/`, key `inspection_notices`), on the Notices page, and per memory
on its detail page ("Who looked at this memory"). Roles and reasons, never the operator."""

import pytest
from django.test import Client

from inspection.enums import InspectionState
from inspection.services import inspection_notices_deliver, inspection_transition
from tests.conftest import bearer_client
from tests.inspection.factories import granted, member_with_memory
from tests.iris_site.factories import OperatorFactory

pytestmark = pytest.mark.django_db

S = InspectionState
NOTICES = "/api/v1/me/notices/"


@pytest.fixture
def legal():
    return OperatorFactory(role="legal")


def _close(inspection, operator):
    return inspection_transition(inspection=inspection, to=S.CLOSED, operator=operator).inspection


def test_the_notices_api_lists_an_ordinary_inspection_once_it_is_closed(legal):
    # given: a routine, non-sensitive inspection of the member's profile
    member, entries = member_with_memory()
    inspection = granted(legal, member)
    api = bearer_client(member)
    # while it is open the member is not told yet
    assert api.get(NOTICES).json()["inspection_notices"] == []
    # when it is closed
    _close(inspection, legal)
    body = api.get(NOTICES).json()
    # then it is listed, typed, beside the (empty) memory questions
    assert body["results"] == []
    (notice,) = body["inspection_notices"]
    assert notice["kind"] == "inspection" and notice["sensitive"] is False
    assert notice["inspection_id"] == str(inspection.pk)
    assert notice["operator_role"] == "legal" and notice["path"] == S.ROUTINE_REVIEW
    assert notice["entry_ids"] == [str(entries["ordinary"].pk)]
    assert "routine review" in notice["summary"]
    assert str(legal.pk) not in str(body)  # never the operator's identity


def test_a_sensitive_inspection_is_listed_once_its_notice_is_delivered(legal):
    member, entries = member_with_memory("category:medical")
    inspection = granted(legal, member, S.DSAR_FULFILLMENT, include_sensitive=True)
    _close(inspection, legal)
    api = bearer_client(member)
    assert api.get(NOTICES).json()["inspection_notices"] == []  # queued, not delivered
    inspection_notices_deliver()
    (notice,) = api.get(NOTICES).json()["inspection_notices"]
    assert notice["sensitive"] is True and notice["sensitive_categories"] == ["medical"]
    assert str(entries["sensitive"].pk) in notice["entry_ids"]


def test_the_notices_page_and_the_memory_page_say_who_looked(legal):
    member, entries = member_with_memory()
    _close(granted(legal, member), legal)
    page = Client()
    page.force_login(member)
    notices = page.get("/profile/memory/notices/").content.decode()
    assert "looked at 1 of your profile memories" in notices
    detail = page.get(f"/profile/memory/{entries['ordinary'].pk}/").content.decode()
    assert "Who looked at this memory" in detail
    assert "An operator (Legal) was allowed to see it" in detail
    assert "for a routine review" in detail
    # a memory the inspection did not cover says nobody looked
    other = page.get(f"/profile/memory/{entries['session'].pk}/").content.decode()
    assert "no one on our staff has looked at it" in other
