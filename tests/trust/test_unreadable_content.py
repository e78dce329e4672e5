"""What Iris does with a sealed value it cannot open (issue 45): it says so — a 409
`entry-unreadable` refusal for an edit, "unavailable" in an export and on the console —
and never records or hands over the empty text it reads as."""

import io
import json
import zipfile
from pathlib import Path

import pytest
from django.test import Client

from datarights.services import datarights_appeal
from iris_site.audit.events import Actor
from iris_site.keys import envelope
from memory.models import MemoryEntry, MemoryRevision
from tests.conftest import bearer_client
from tests.datarights.factories import EXPORT, process, submit
from tests.iris_site.factories import OperatorFactory
from tests.memory.factories import consenting_member, remember
from tests.trust.test_encryption_attacks import _entries, _export_bytes, _tamper

pytestmark = pytest.mark.django_db(transaction=True)


def _damaged_entry(column: str = "subject"):
    member = consenting_member()
    entry = remember(member, subject="tea", body="Drinks quokkazine tea").entry
    _tamper(MemoryEntry, column, entry.pk)
    return member, entry


def test_an_edit_or_preview_of_an_unreadable_memory_is_a_409_on_the_api():
    member, entry = _damaged_entry("subject")
    revisions = MemoryRevision.objects.filter(entry_id=entry.pk).count()
    api = bearer_client(member)
    edited = api.patch(
        f"/api/v1/me/memories/{entry.pk}/", {"body": "Drinks rooibos now"}, format="json"
    )
    previewed = api.post(
        f"/api/v1/me/memories/{entry.pk}/preview/", {"subject": "coffee"}, format="json"
    )
    for answer in (edited, previewed):
        assert answer.status_code == 409, answer.content
        assert answer.json()["error"]["code"] == "entry-unreadable", answer.content
    assert MemoryRevision.objects.filter(entry_id=entry.pk).count() == revisions


def test_the_edit_page_of_an_unreadable_memory_refuses_with_a_message_not_a_500():
    member, entry = _damaged_entry("body")
    page = Client(raise_request_exception=False)
    page.force_login(member)
    url = f"/profile/memory/{entry.pk}/edit/"
    assert page.get(url).status_code == 200
    form = {"body": "Drinks rooibos now", "subject": "tea", "category": entry.category}
    for extra in ({"preview": "1"}, {}):
        answer = page.post(url, {**form, **extra}, follow=True)
        assert answer.status_code == 200
        assert "cannot be read" in answer.content.decode()
    assert envelope.unreadable(MemoryEntry.objects.get(pk=entry.pk).body)


def test_an_unreadable_subject_is_exported_as_unavailable_in_the_data_and_the_summary(
    settings, tmp_path
):
    settings.IRIS_DSAR_EXPORT_DIR = str(tmp_path / "exports")
    member, entry = _damaged_entry("subject")
    exported = process(submit(member, "export", EXPORT))
    assert exported.status == "completed"
    path = next(p for p in Path(settings.IRIS_DSAR_EXPORT_DIR).rglob("*") if p.is_file())
    with zipfile.ZipFile(io.BytesIO(_export_bytes(member, path))) as bundle:
        document = json.loads(bundle.read("data.json"))
        summary = bundle.read("summary.html").decode()
    found = [e for e in _entries(document) if e.get("id") == str(entry.pk)]
    assert found, list(document)
    assert found[0]["subject"] is None and found[0]["unavailable"] is True
    assert found[0]["unavailable_fields"] == ["subject"]
    assert found[0]["body"] == "Drinks quokkazine tea"
    assert "<strong>unavailable</strong>" in summary


def test_the_console_says_an_unreadable_appeal_is_unavailable(settings, tmp_path):
    settings.IRIS_DSAR_EXPORT_DIR = str(tmp_path / "exports")
    member = consenting_member()
    exported = process(submit(member, "export", EXPORT))
    datarights_appeal(request=exported, reason="you left out my notes", actor=Actor.of(member))
    from datarights.models import DataRightsRequest

    _tamper(DataRightsRequest, "appeal_reason", exported.pk)
    page = Client(raise_request_exception=False)
    page.force_login(OperatorFactory(role="legal"))
    answer = page.get(f"/console/data-rights/{exported.pk}/")
    assert answer.status_code == 200, answer.status_code
    assert "words are unavailable" in answer.content.decode()
