"""The "Your data" page: receipts, the three request forms, verification by the
signed-in session, cancel, appeal and download, all without JavaScript."""

import io
import zipfile

import pytest
from django.test import Client
from django.urls import reverse

from datarights.models import DataRightsRequest
from datarights.processing import datarights_process
from tests.datarights.factories import EXPORT, consenting_member, remember, submit
from tests.iris_site.factories import PASSWORD, MemberFactory, OperatorFactory

pytestmark = pytest.mark.django_db

INDEX = "/profile/memory/data/"


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_page_is_wired_under_the_memory_page():
    assert reverse("datarights:index") == INDEX


def test_the_overview_links_the_three_pages_which_list_receipts_and_offer_the_forms():
    member = MemberFactory()
    submit(member, "access", session=False)
    client = signed_in(member)
    response = client.get(INDEX)
    assert response.status_code == 200
    html = response.content.decode()
    assert "<h1>Your data</h1>" in html
    for name in ("export", "access", "delete"):
        assert f'href="{reverse(f"datarights:{name}")}"' in html
    access = client.get(reverse("datarights:access")).content.decode()
    assert "Access request" in access and "Confirm it is me" in access
    assert access.count("csrfmiddlewaretoken") >= 3
    assert "See what Iris holds and who looked" in access
    assert "Get a copy of your data" in client.get(reverse("datarights:export")).content.decode()
    erase = client.get(reverse("datarights:delete")).content.decode()
    assert "Erase your data" in erase and 'for="id_password"' in erase


def test_only_signed_in_members():
    assert Client().get(INDEX).status_code == 302
    assert signed_in(OperatorFactory(role="legal")).get(INDEX).status_code == 403


def test_request_an_export_and_download_it():
    member = consenting_member()
    remember(member, body="I take my coffee black", subject="coffee")
    client = signed_in(member)
    response = client.post(
        reverse("datarights:export"),
        {"scopes": ["profile"], "include_consents": "on", "include_session_memory": "on"},
    )
    assert response.status_code == 302
    request = DataRightsRequest.objects.get(member=member)
    assert request.status == "verified" and request.verification_method == "session-token"
    datarights_process(request_id=request.pk)
    page = client.get(reverse("datarights:export")).content.decode()
    assert "Download your export" in page
    download = client.get(reverse("datarights:download", args=[request.pk]))
    assert download.status_code == 200 and download["Content-Type"] == "application/zip"
    with zipfile.ZipFile(io.BytesIO(b"".join(download.streaming_content))) as archive:
        assert "I take my coffee black" in archive.read("data.json").decode()


def test_an_encrypted_export_needs_a_long_passphrase():
    member = MemberFactory()
    response = signed_in(member).post(
        reverse("datarights:export"), {"encrypted": "on", "passphrase": "short"}
    )
    assert response.status_code == 400
    assert 'role="alert"' in response.content.decode()
    assert not DataRightsRequest.objects.exists()


def test_a_deletion_needs_the_password_and_a_scope():
    member = MemberFactory()
    client = signed_in(member)
    wrong = client.post(
        reverse("datarights:delete"), {"mode": "hard", "scopes": ["profile"], "password": "nope"}
    )
    assert wrong.status_code == 400 and "That password is not right." in wrong.content.decode()
    nothing = client.post(reverse("datarights:delete"), {"mode": "hard", "password": PASSWORD})
    assert nothing.status_code == 400
    assert "at least one scope or category" in nothing.content.decode()
    assert not DataRightsRequest.objects.exists()


def test_a_soft_deletion_from_the_page_can_be_cancelled_in_its_window():
    member = consenting_member()
    remember(member, body="I take my coffee black", subject="coffee")
    client = signed_in(member)
    response = client.post(
        reverse("datarights:delete"),
        {"mode": "soft", "scopes": ["profile"], "grace_days": "3", "password": PASSWORD},
    )
    assert response.status_code == 302
    request = DataRightsRequest.objects.get(member=member)
    datarights_process(request_id=request.pk)
    page = client.get(reverse("datarights:delete")).content.decode()
    assert "Keep my memories" in page and "Hidden until" in page
    client.post(reverse("datarights:cancel", args=[request.pk]))
    request.refresh_from_db()
    assert request.status == "cancelled"


def test_verify_and_appeal_from_the_page():
    member = MemberFactory()
    request = submit(member, "access", session=False)
    client = signed_in(member)
    client.post(reverse("datarights:verify", args=[request.pk]))
    request.refresh_from_db()
    assert request.status == "verified"
    datarights_process(request_id=request.pk)
    assert "What Iris holds on you" in client.get(reverse("datarights:access")).content.decode()
    client.post(reverse("datarights:appeal", args=[request.pk]), {"reason": "Incomplete"})
    request.refresh_from_db()
    assert request.status == "appealed"


def test_another_members_request_is_not_found():
    request = submit(MemberFactory(), "export", EXPORT)
    client = signed_in(MemberFactory())
    for name in ("verify", "cancel", "appeal"):
        assert client.post(reverse(f"datarights:{name}", args=[request.pk])).status_code == 404
    assert client.get(reverse("datarights:download", args=[request.pk])).status_code == 404
