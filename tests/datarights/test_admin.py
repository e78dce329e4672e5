"""The admin work queue: read-only, filtered, deadlines coloured by urgency."""

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from tests.datarights.factories import submit
from tests.iris_site.factories import MemberFactory, OperatorFactory

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/datarights/datarightsrequest/"


def admin_client() -> Client:
    operator = OperatorFactory(role="admin")
    operator.is_superuser = True
    operator.save()
    client = Client()
    client.force_login(operator)
    return client


def test_the_queue_colours_deadlines_and_filters_overdue():
    late = submit(MemberFactory(), "access", session=False, now=timezone.now() - timedelta(days=40))
    fresh = submit(MemberFactory(), "access", session=False)
    client = admin_client()
    html = client.get(CHANGELIST).content.decode()
    assert "overdue" in html and "on time" in html
    overdue = client.get(CHANGELIST, {"deadline": "overdue"}).content.decode()
    assert str(late.pk) in overdue and str(fresh.pk) not in overdue
    assert client.get(CHANGELIST, {"status": "submitted", "kind": "access"}).status_code == 200


def test_requests_are_read_only_in_the_admin():
    request = submit(MemberFactory(), "access")
    client = admin_client()
    detail = client.get(f"{CHANGELIST}{request.pk}/change/")
    assert detail.status_code == 200
    assert 'type="submit"' not in detail.content.decode() or "Save" not in detail.content.decode()
    assert client.get(f"{CHANGELIST}add/").status_code == 403
    assert client.post(f"{CHANGELIST}{request.pk}/delete/", {"post": "yes"}).status_code == 403
