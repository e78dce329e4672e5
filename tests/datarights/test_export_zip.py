"""The export is a zip: data.json (the machine-readable document as before),
summary.html (a self-contained page a person reads offline) and README.txt; the
receipt's fingerprint is the SHA-256 of the zip; a passphrase still seals it. On disk no
export is readable without the member's key: one asked for without a passphrase is
sealed under a key derived from the member's data key, decrypted as it is downloaded,
and gone (410) once their keys are shredded; plain zips written before still download."""

import hashlib
import io
import json
import re
import zipfile

import pytest
from django.test import Client

from datarights.contracts import ExportPayload
from datarights.crypto import decrypt_lines, decrypt_member_lines
from datarights.export import artifact_path, open_zip, write_zip
from datarights.models import DataRightsRequest
from iris_site.audit.events import Actor
from iris_site.keys import envelope
from memory.forgetting.services import memory_tombstone
from memory.labels import scope_label
from tests.datarights.factories import consenting_member, process, remember, submit
from tests.inspection.factories import granted
from tests.iris_site.factories import OperatorFactory

pytestmark = pytest.mark.django_db

ACTIVE = "I take my coffee with cardamom & a pinch of <salt>"
FORGOTTEN = "My locker code is 4471"
PASSPHRASE = "purple elephant 42"


def _member_with_history():
    member = consenting_member()
    remember(member, subject="coffee", body=ACTIVE)
    gone = remember(member, subject="locker", body=FORGOTTEN).entry
    memory_tombstone(entry=gone, actor=Actor.of(member))
    granted(OperatorFactory(role="legal"), member)  # operator actions on the member
    return member


def _download(member, request) -> bytes:
    client = Client()
    client.force_login(member)
    response = client.get(f"/profile/memory/data/{request.pk}/download/")
    assert response.status_code == 200
    expected = "application/octet-stream" if request.artifact_encrypted else "application/zip"
    assert response["Content-Type"] == expected
    assert response["Content-Disposition"].endswith('.zip"') or request.artifact_encrypted
    return b"".join(response.streaming_content)


def test_the_export_is_a_zip_whose_fingerprint_covers_every_member():
    member = _member_with_history()
    request = process(submit(member, "export", {}))  # the default export
    body = _download(member, request)
    assert hashlib.sha256(body).hexdigest() == request.result_fingerprint
    with zipfile.ZipFile(io.BytesIO(body)) as archive:
        assert archive.namelist() == ["data.json", "summary.html", "README.txt"]
        assert archive.testzip() is None
        data = json.loads(archive.read("data.json"))
        summary = archive.read("summary.html").decode()
        readme = archive.read("README.txt").decode()
    assert data["format"] == "iris-dsar-export" and summary.startswith("<!doctype html>")
    assert {"scene_memory", "pose_memory"} <= set(data)  # the default is every scope
    assert "summary.html" in readme and "data.json" in readme and "SHA-256" in readme
    # the fingerprint is of the zip, all three members; on disk it is sealed
    stored = artifact_path(request)
    assert stored.name == f"{request.pk}.zip.sealed" and not request.artifact_encrypted
    assert not stored.read_bytes().startswith(b"PK")
    with open(stored, "rb") as handle:
        assert b"".join(decrypt_member_lines(handle, member_id=member.pk)) == body


def test_the_summary_is_self_contained_and_shows_what_is_remembered_not_what_was_forgotten():
    member = _member_with_history()
    request = process(submit(member, "export", {}))
    with open_zip(artifact_path(request)) as archive:
        summary = archive.read("summary.html").decode()
    # an active memory's text, escaped; the forgotten one's absent, only counted
    assert "I take my coffee with cardamom &amp; a pinch of &lt;salt&gt;" in summary
    assert FORGOTTEN not in summary and "locker" not in summary
    assert "1 forgotten memory is not shown" in summary
    # grouped as on the member page, under its plain-language place names
    assert f"<h3>{scope_label('profile')}</h3>" in summary
    for heading in (
        "What Iris remembers",
        "Your consents",
        "Who looked, and why",
        "How long Iris keeps things",
    ):
        assert heading in summary
    # operator actions: role, action and why, never the operator's id
    # in words, never an event code (issue 47, item 3)
    assert "an Iris operator (legal)" in summary and "was allowed to look" in summary
    assert "inspection.request.transitioned" not in summary
    assert "for a routine review" in summary and "was allowed to look" in summary
    # nothing to fetch: no external (or any) resource reference, no script
    assert not re.search(r"""(src|href)\s*=""", summary)
    assert "<script" not in summary and "@import" not in summary and "url(" not in summary


def test_a_passphrase_still_seals_the_zip():
    member = _member_with_history()
    request = process(submit(member, "export", {"encrypted": True}, passphrase=PASSPHRASE))
    assert request.artifact_encrypted and request.artifact_name.endswith(".zip.enc")
    sealed = _download(member, request)
    assert ACTIVE.encode() not in sealed and not sealed.startswith(b"PK")
    plain = b"".join(decrypt_lines(sealed.splitlines(keepends=True), PASSPHRASE))
    assert hashlib.sha256(plain).hexdigest() == request.result_fingerprint
    with zipfile.ZipFile(io.BytesIO(plain)) as archive:
        assert "cardamom" in archive.read("summary.html").decode()
        assert json.loads(archive.read("data.json"))["request_id"] == str(request.pk)


def test_a_forget_after_the_export_removes_the_zip_that_holds_the_text():
    member = consenting_member()
    coffee = remember(member, subject="coffee", body=ACTIVE).entry
    request = process(submit(member, "export", {}))
    path = artifact_path(request)
    assert path.exists()
    memory_tombstone(entry=coffee, actor=Actor.of(member))
    assert not path.exists()
    request.refresh_from_db()
    assert request.artifact_removed_at is not None


# --- Sealed at rest under the member's key ------------------------------------------------

WORD = "Quillfeather"  # a word found nowhere else


def _sealed_export(member):
    remember(member, subject="pen", body=f"Writes every letter with a {WORD} fountain pen")
    request = process(submit(member, "export", {}))
    assert request.status == "completed"
    return request


def _disposition(member, request) -> str:
    client = Client()
    client.force_login(member)
    return client.get(f"/profile/memory/data/{request.pk}/download/")["Content-Disposition"]


def test_the_file_on_disk_holds_no_word_of_the_memory_while_the_download_is_the_zip():
    member = consenting_member()
    request = _sealed_export(member)
    stored = artifact_path(request).read_bytes()
    assert WORD.encode() not in stored and WORD.lower().encode() not in stored.lower()
    assert stored.startswith(b"IRIS-DSAR-MEMBER1 ")
    body = _download(member, request)  # application/zip, iris-export-<id>.zip
    assert f'filename="iris-export-{request.pk}.zip"' in _disposition(member, request)
    assert hashlib.sha256(body).hexdigest() == request.result_fingerprint
    with zipfile.ZipFile(io.BytesIO(body)) as archive:
        assert WORD in archive.read("data.json").decode()
        assert WORD in archive.read("summary.html").decode()


def test_once_the_members_keys_are_shredded_the_download_is_gone_never_a_500():
    member = consenting_member()
    request = _sealed_export(member)
    assert envelope.shred(member.pk) >= 1
    envelope.cache_clear()
    page = Client()
    page.force_login(member)
    response = page.get(f"/profile/memory/data/{request.pk}/download/")
    # the page does what it does for an expired bundle: back to the page, with why
    assert response.status_code == 302 and response.url.endswith("/profile/memory/data/export/")
    follow = page.get(response.url)
    assert "no longer available" in follow.content.decode()
    api = Client()
    api.force_login(member)
    gone = api.get(f"/api/v1/me/data-rights/{request.pk}/download/")
    assert gone.status_code == 410
    assert gone.json()["error"]["code"] == "download-expired"
    assert WORD.encode() not in artifact_path(request).read_bytes()


def test_an_altered_sealed_file_is_gone_never_a_partial_zip():
    member = consenting_member()
    request = _sealed_export(member)
    path = artifact_path(request)
    lines = path.read_bytes().splitlines(keepends=True)
    lines[-1] = lines[-1][:20] + (b"A" if lines[-1][20:21] != b"A" else b"B") + lines[-1][21:]
    path.write_bytes(b"".join(lines))
    api = Client()
    api.force_login(member)
    gone = api.get(f"/api/v1/me/data-rights/{request.pk}/download/")
    assert gone.status_code == 410


def test_a_plain_zip_written_before_files_were_sealed_still_downloads():
    member = consenting_member()
    request = _sealed_export(member)
    # As it was written before: `{id}.zip`, the zip itself on disk.
    legacy = artifact_path(request).with_name(f"{request.pk}.zip")
    with open(legacy, "wb") as out:
        write_zip(
            request_id=request.pk,
            member_id=member.pk,
            payload=ExportPayload.model_validate(request.payload),
            generated_at=request.started_at,
            out=out,
        )
    artifact_path(request).unlink()
    DataRightsRequest.objects.filter(pk=request.pk).update(artifact_name=legacy.name)
    request.refresh_from_db()
    assert legacy.read_bytes().startswith(b"PK\x03\x04")
    body = _download(member, request)
    assert body == legacy.read_bytes()  # served as stored
    with open_zip(legacy) as archive:
        assert WORD in archive.read("data.json").decode()
