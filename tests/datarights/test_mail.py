"""Mail that arrives, and a mail that cannot be sent is seen: over real HTTP, with the
real transports (Django's locmem outbox; SMTP to a port nothing listens on)."""

import re
import socket

import pytest
from django.core import mail

from datarights.models import DataRightsRequest, VerificationCode
from iris_site.models import AuditEvent
from iris_site.services import token_issue
from iris_site.settings import mailer_from_url
from tests.conftest import http_request
from tests.iris_site.factories import MemberFactory

pytestmark = pytest.mark.django_db(transaction=True)

LIST = "/api/v1/me/data-rights/"


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]  # closed again when the block ends


def _smtp_down(settings) -> None:
    """SMTP to a port nothing listens on: the real transport, refused."""
    settings.MAILERS = {"default": mailer_from_url(f"smtp://127.0.0.1:{_closed_port()}?timeout=2")}


def _outbox(settings) -> None:
    settings.MAILERS = {"default": mailer_from_url("memory://")}


def _submit(live_server, token):
    return http_request(
        f"{live_server.url}{LIST}",
        method="POST",
        token=token,
        body={"kind": "access", "payload": {}},
    )


def test_a_token_request_says_where_the_code_went_and_the_code_verifies_it(live_server):
    member = MemberFactory(email="ana.lopez@example.com")
    _, token = token_issue(owner=member)

    response = _submit(live_server, token)

    assert response.status == 201 and response.body["status"] == "submitted"
    verification = response.body["verification"]
    assert verification["delivery"] == "sent"
    assert verification["sent_to"] == "a•••@example.com"
    assert verification["verify_url"] == f"{LIST}{response.body['id']}/verify/"
    (sent,) = mail.outbox
    assert sent.to == ["ana.lopez@example.com"]
    # in plain grammar (issue 47, item 8): "an access report", never "a access"
    assert "asked Iris for an access report on your data." in sent.body
    assert "a access" not in sent.body
    code = re.search(r"code is (\d{6})", sent.body).group(1)
    verified = http_request(
        f"{live_server.url}{verification['verify_url']}",
        method="POST",
        token=token,
        body={"code": code},
    )
    assert verified.status == 200 and verified.body["status"] == "verified"
    assert verified.body["verification"] is None


def test_a_mail_that_cannot_be_sent_is_shown_to_the_member_and_the_operators(live_server, settings):
    _smtp_down(settings)
    member = MemberFactory(email="ana.lopez@example.com")
    _, token = token_issue(owner=member)

    response = _submit(live_server, token)

    # Nothing is lost: the request stands, and says the code did not leave.
    assert response.status == 201 and response.body["status"] == "submitted"
    assert response.body["verification"]["delivery"] == "failed"
    assert response.body["audit_trail"][-1]["event"] == "mail-undelivered"
    request = DataRightsRequest.objects.get(pk=response.body["id"])
    assert VerificationCode.objects.get(request=request).delivery == "failed"
    alert = AuditEvent.objects.get(action="datarights.request.mail_undelivered")
    assert alert.severity == "warning" and alert.payload["mail"] == "code"
    assert "example.com" not in str(alert.payload)

    # The transport is back: a new code is asked for, and it arrives.
    _outbox(settings)
    resent = http_request(
        f"{live_server.url}{LIST}{request.pk}/verify/",
        method="POST",
        token=token,
        body={"resend": True},
    )
    assert resent.status == 202 and resent.body["verification"]["delivery"] == "sent"
    assert len(mail.outbox) == 1


def test_the_member_page_says_when_the_code_could_not_be_sent(client, settings):
    _smtp_down(settings)
    member = MemberFactory()
    _, token = token_issue(owner=member)
    api = client.__class__()
    created = api.post(
        LIST,
        {"kind": "access", "payload": {}},
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {token}",
    )
    assert created.status_code == 201

    client.force_login(member)
    page = client.get("/profile/memory/data/access/")  # the access request's own page

    assert "We could not send the confirmation code." in page.content.decode()
