"""Django's request log (`django.request` and `django.security.*`, as
`iris_site.settings.LOGGING` configures them): a refused request (403, 404, a 400 for a
bad Host) is one line naming its route, never a traceback or the path; a real server
error keeps its traceback."""

import logging
import uuid

import pytest
from django.test import Client
from django.urls import path

from iris_site import urls as site_urls
from iris_site.enums import OperatorRole
from tests.conftest import bearer_client
from tests.iris_site.factories import MemberFactory, OperatorFactory

pytestmark = [pytest.mark.django_db, pytest.mark.urls(__name__)]


def _fault(request):
    raise RuntimeError("a real bug")


# The site's own pages, and one that fails the way a bug does.
urlpatterns = [path("test-fault/", _fault, name="test-fault"), *site_urls.urlpatterns]


@pytest.fixture
def request_log(caplog):
    """What `django.request` and `django.security` log, as the console shows it."""
    caplog.set_level(logging.INFO, logger="django")
    return caplog


def _printed(caplog) -> list[str]:
    """Each record through the configured console handler: its filters, then its format
    (the message, then any traceback)."""
    console = next(
        h for h in logging.getLogger("django").handlers if type(h) is logging.StreamHandler
    )
    return [
        console.format(r)
        for r in caplog.records
        if r.name.startswith(("django.request", "django.security")) and console.filter(r)
    ]


def test_a_forbidden_page_logs_one_line_naming_the_route(request_log):
    # given: a member opens an operator page (the view raises PermissionDenied)
    client = Client()
    client.force_login(MemberFactory())
    # when
    response = client.get("/console/")
    # then
    assert response.status_code == 403
    [line] = _printed(request_log)
    assert line.startswith("Forbidden (Permission denied): ") and "\n" not in line
    assert "Traceback" not in line and "/console/" not in line


def test_a_forbidden_api_call_logs_one_line(request_log):
    response = bearer_client(MemberFactory()).get("/api/v1/operator/audit-events/")
    assert response.status_code == 403
    [line] = _printed(request_log)
    assert line.startswith("Forbidden: ") and "\n" not in line


def test_a_missing_page_logs_one_line(request_log):
    client = Client()
    client.force_login(OperatorFactory(role=OperatorRole.ADMIN))
    response = client.get(f"/console/inspections/{uuid.uuid4()}/")
    assert response.status_code == 404
    [line] = _printed(request_log)
    assert line.startswith("Not Found: ") and "\n" not in line


def test_a_server_error_keeps_its_traceback(request_log):
    response = Client(raise_request_exception=False).get("/test-fault/")
    assert response.status_code == 500
    [line] = _printed(request_log)
    assert line.startswith("Internal Server Error: ")
    assert "Traceback" in line and "RuntimeError: a real bug" in line


def test_a_bad_host_logs_one_line(request_log, settings):
    settings.ALLOWED_HOSTS = ["iris.example"]
    response = Client(raise_request_exception=False).get("/", HTTP_HOST="evil.example")
    assert response.status_code == 400
    [line] = _printed(request_log)
    assert line.startswith("Invalid HTTP_HOST header: 'evil.example'") and "\n" not in line
