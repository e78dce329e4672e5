"""Attacks on encryption at rest (issue 45), as a thief with a dump, a curious operator, a
hostile surface, a retrying client and a racing second request would make them.

Each test's docstring says the attack. A test marked `xfail(strict=True)` is a hole that
is confirmed and not fixed yet (its reason says where); the others are defences that
hold and stay as coverage."""

import base64
import json
import os
import stat
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from django.db import connection
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from iris_site.appendonly import append_only_models, sqlite_set_triggers
from iris_site.audit.events import Actor
from iris_site.keys import envelope, kek
from iris_site.services import token_issue
from memory.models import MemoryEntry, MemoryRevision
from memory.services import memory_edit
from tests.conftest import bearer_client
from tests.datarights.factories import EXPORT, process, submit
from tests.iris_site.factories import ServiceClientFactory
from tests.memory.factories import consenting_member, remember

pytestmark = pytest.mark.django_db(transaction=True)


def new_marker() -> str:
    return f"zqv{uuid.uuid4().hex[:10]}k7"


def _flip(token: str) -> str:
    """The sealed value with one ciphertext byte altered (after header and nonce)."""
    payload = token[len(envelope.PREFIX) :]
    raw = bytearray(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    raw[40 if len(raw) > 40 else -1] ^= 0x01
    return envelope.PREFIX + base64.urlsafe_b64encode(bytes(raw)).decode().rstrip("=")


def _key(pk):
    return pk.hex if connection.vendor == "sqlite" else pk


def _tamper(model, column: str, pk) -> None:
    """Alter one byte of a stored sealed value, as storage corruption or a hostile
    operator with SQL would (append-only guards lifted for the statement)."""
    table = model._meta.db_table
    guarded = model in append_only_models()
    if not guarded:
        pass
    elif connection.vendor == "sqlite":
        sqlite_set_triggers([model], enabled=False)
    else:
        with connection.cursor() as cursor:
            cursor.execute(f'ALTER TABLE "{table}" DISABLE TRIGGER USER')
    try:
        with connection.cursor() as cursor:
            cursor.execute(f'SELECT "{column}" FROM "{table}" WHERE id = %s', [_key(pk)])
            (stored,) = cursor.fetchone()
            assert stored.startswith(envelope.PREFIX), stored[:20]
            cursor.execute(
                f'UPDATE "{table}" SET "{column}" = %s WHERE id = %s', [_flip(stored), _key(pk)]
            )
    finally:
        if not guarded:
            pass
        elif connection.vendor == "sqlite":
            sqlite_set_triggers([model], enabled=True)
        else:
            with connection.cursor() as cursor:
                cursor.execute(f'ALTER TABLE "{table}" ENABLE TRIGGER USER')
    envelope.cache_clear()


def _plain_hits(marker: str) -> list[str]:
    """Every table.column of the main database whose stored value contains `marker`
    (the member's email aside): what a thief with a dump reads."""
    hits = []
    with connection.cursor() as cursor:
        tables = connection.introspection.table_names(cursor)
        for table in tables:
            columns = [
                c.name for c in connection.introspection.get_table_description(cursor, table)
            ]
            quoted = ", ".join(f'"{c}"' for c in columns)
            cursor.execute(f'SELECT {quoted} FROM "{table}"')
            for row in cursor.fetchall():
                for column, value in zip(columns, row, strict=True):
                    if value is None:
                        continue
                    text = (
                        value.decode("latin-1")
                        if isinstance(value, bytes | memoryview)
                        else str(value)
                    )
                    if marker in text.lower() and "@" not in text:
                        hits.append(f"{table}.{column}")
    return sorted(set(hits))


def _assistant_token() -> str:
    _, raw = token_issue(owner=ServiceClientFactory(consumer="assistant"))
    return raw


def _export_bytes(member, path: Path) -> bytes:
    """The zip an export file holds, decrypted as the member's download does."""
    from datarights.crypto import decrypt_member_lines

    with path.open("rb") as handle:
        return b"".join(decrypt_member_lines(handle, member_id=member.pk))


def _entries(document):
    """Every dict with an `id` anywhere in an export document."""
    if isinstance(document, dict):
        if "id" in document:
            yield document
        for value in document.values():
            yield from _entries(value)
    elif isinstance(document, list):
        for value in document:
            yield from _entries(value)


# --- 1. Tampered rows: never a 500 --------------------------------------------------------


def test_a_tampered_revision_is_never_a_500_on_history_page_api_or_export(settings, tmp_path):
    """Attack: corrupt one byte of a memory's revision (`memory_memoryrevision.content`,
    a SealedJSONField). It opens as an empty dict (`UnreadableJSON`); every reader that
    indexes into a revision's content (`content["subject"]`, …) must cope. The member's
    history page, the revisions API and the export must answer, never 500."""
    settings.IRIS_DSAR_EXPORT_DIR = str(tmp_path / "exports")
    member = consenting_member()
    entry = remember(member, subject="tea", body="Drinks quokkazine tea").entry
    revision = MemoryRevision.objects.filter(entry_id=entry.pk).order_by("-number").first()
    _tamper(MemoryRevision, "content", revision.pk)

    api = bearer_client(member)
    page = Client(raise_request_exception=False)
    page.force_login(member)
    statuses = {
        "api revisions": api.get(f"/api/v1/me/memories/{entry.pk}/revisions/").status_code,
        "api entry": api.get(f"/api/v1/me/memories/{entry.pk}/").status_code,
        "page detail": page.get(f"/profile/memory/{entry.pk}/").status_code,
        "page history": page.get(f"/profile/memory/{entry.pk}/history/").status_code,
    }
    exported = process(submit(member, "export", EXPORT))
    statuses["export"] = exported.status
    assert all(s != 500 for s in statuses.values() if isinstance(s, int)), statuses
    assert statuses["export"] == "completed", statuses


def test_a_tampered_subject_is_not_written_back_empty_by_an_edit_of_the_body():
    """Attack: a memory's subject is corrupted (or sealed under a key this deployment
    never had); the member then edits only its body. The edit must not record the
    unreadable subject as an empty one: not in the new revision (the member's history
    would say the subject was erased), not in the conflict key (the entry would join
    the cluster of subject-less facts and supersede or be superseded by them)."""
    member = consenting_member()
    entry = remember(member, subject="tea", body="Drinks quokkazine tea").entry
    stated_key = MemoryEntry.objects.values_list("conflict_key", flat=True).get(pk=entry.pk)
    _tamper(MemoryEntry, "subject", entry.pk)

    fresh = MemoryEntry.objects.get(pk=entry.pk)
    assert envelope.unreadable(fresh.subject)
    try:
        memory_edit(entry=fresh, actor=Actor.of(member), body="Drinks rooibos now")
    except Exception as exc:  # a refusal that says why is a defence too
        assert getattr(exc, "status_code", 500) < 500, repr(exc)
        return
    head = MemoryRevision.objects.filter(entry_id=entry.pk).order_by("-number").first()
    content = head.content
    after_key = MemoryEntry.objects.values_list("conflict_key", flat=True).get(pk=entry.pk)
    assert content.get("subject") not in ("", None), content
    assert after_key == stated_key, "the conflict key was recomputed from an empty subject"


def test_a_tampered_body_is_not_exported_as_empty_content(settings, tmp_path):
    """Attack: a memory's body is corrupted; the member exports their data. The export
    must say the memory is unavailable, not hand the member an empty body as if that
    were what Iris holds (issue 45: 'reads as unavailable … in exports')."""
    import zipfile

    settings.IRIS_DSAR_EXPORT_DIR = str(tmp_path / "exports")
    member = consenting_member()
    entry = remember(member, subject="tea", body="Drinks quokkazine tea").entry
    _tamper(MemoryEntry, "body", entry.pk)
    exported = process(submit(member, "export", EXPORT))
    assert exported.status == "completed"
    from datarights.crypto import decrypt_member_lines  # noqa: F401 - existence

    path = next(p for p in Path(settings.IRIS_DSAR_EXPORT_DIR).rglob("*") if p.is_file())
    data = _export_bytes(member, path)
    with zipfile.ZipFile(__import__("io").BytesIO(data)) as bundle:
        document = json.loads(bundle.read("data.json"))
    text = json.dumps(document)
    found = [e for e in _entries(document) if e.get("id") == str(entry.pk)]
    assert found, text[:500]
    assert found[0].get("body") != "" or "unavailable" in json.dumps(found[0]), found[0]


# --- 2. Plain text at rest ------------------------------------------------------------------


def test_a_surface_cannot_land_member_words_in_plain_text_through_provenance():
    """Attack (hostile or careless surface; then a thief with a dump): remember a fact
    over the API with the member's words in the provenance link's free-text `ref` (256
    characters, e.g. a manual import's "notes.txt: takes <drug> 50mcg"). The entry's
    body is sealed; `memory_memoryentry.provenance_chain` is a plain JSONField, so the
    words sit in the dump. Either the ref is sealed, or it is refused unless it is an id."""
    member = consenting_member()
    marker = new_marker()
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {_assistant_token()}")
    answer = api.post(
        f"/api/v1/members/{member.pk}/memories/",
        {
            "scope": {"kind": "session", "session_id": "s-1"},
            "category": "preference",
            "subject": "coffee",
            "body": "likes oat milk",
            "origin": "model-inferred",
            "provenance": [
                {
                    "kind": "manual-import",
                    "ref": f"notes.txt: takes {marker} 50mcg every morning",
                    "captured_at": timezone.now().isoformat(),
                }
            ],
        },
        format="json",
    )
    if answer.status_code >= 400:
        return  # a ref that is not an id refused: the defence holds
    assert _plain_hits(marker) == []


def test_a_members_appeal_in_their_own_words_is_not_stored_in_plain_text(settings, tmp_path):
    """Attack (thief with a dump): a member appeals a data-rights decision in their own
    words ("you kept my <diagnosis> notes"). `datarights_datarightsrequest.appeal_reason`
    is a plain TextField: the words are in the dump, and outlive the member's erasure
    (a shred cannot reach them)."""
    from datarights.services import datarights_appeal

    settings.IRIS_DSAR_EXPORT_DIR = str(tmp_path / "exports")
    member = consenting_member()
    marker = new_marker()
    exported = process(submit(member, "export", EXPORT))
    assert exported.status == "completed"
    datarights_appeal(
        request=exported,
        reason=f"the export left out my {marker} prescription notes",
        actor=Actor.of(member),
    )
    assert _plain_hits(marker) == []


# --- 3. Keys: reads never make one; the files are private --------------------------------


def test_a_read_does_not_make_a_key_for_an_erased_member():
    """Attack (a restored backup served with the live key store): the member was erased,
    their keys destroyed. A mere read of theirs — the edit preview, which only asks what
    an edit would supersede — must not make a new key generation (a key made by a read
    is a key a later write of someone else's process, or an export, would use for an
    erased member). `memory_conflicting_entries` calls `conflict_token` → `member_token`
    → `write_key`."""
    member = consenting_member()
    entry = remember(member, subject="tea", body="Drinks quokkazine tea").entry
    envelope.shred(member.pk)
    before = envelope.key_store().latest(str(member.pk))
    assert before.destroyed

    answer = bearer_client(member).post(
        f"/api/v1/me/memories/{entry.pk}/preview/", {"subject": "coffee"}, format="json"
    )
    assert answer.status_code < 500, answer.content
    after = envelope.key_store().latest(str(member.pk))
    assert after.generation == before.generation and after.destroyed, after


def test_the_key_store_file_is_private(settings, tmp_path):
    """Attack (another local user, a backup agent with wide read): the key store file
    holds every member's wrapped data key. Created by `sqlite3.connect` under the
    process umask it is world-readable (0644) — with the KEK file (0600) leaking later,
    or a KMS role misused, it is half of every member's key. It should be 0600 like the
    KEK file, and its -wal/-shm too."""
    path = tmp_path / "keys" / "keystore.sqlite3"
    settings.IRIS_KEYSTORE_PATH = str(path)
    envelope._store.cache_clear()
    envelope.cache_clear()
    old = os.umask(0o022)
    try:
        envelope.write_key(uuid.uuid4())
    finally:
        os.umask(old)
        envelope.key_store().close()
        envelope._store.cache_clear()
    modes = {
        p.name: stat.S_IMODE(p.stat().st_mode)
        for p in path.parent.iterdir()
        if p.name.startswith("keystore.sqlite3")
    }
    assert all(mode & 0o077 == 0 for mode in modes.values()), {k: oct(v) for k, v in modes.items()}


def test_a_generated_kek_file_is_private(settings, tmp_path):
    """Attack (another local user): the KEK file generated in development. Defence: it
    is created 0600 with O_EXCL (holds)."""
    settings.IRIS_KEK = ""
    settings.IRIS_KEK_FILE = str(tmp_path / "k" / "kek.json")
    settings.IRIS_KEK_GENERATE = True
    kek.keyset_text()
    assert stat.S_IMODE(Path(settings.IRIS_KEK_FILE).stat().st_mode) == 0o600


# --- 4. Faults of the keys: a 503, never a 500 --------------------------------------------


def _recall_and_write(member):
    api = APIClient(raise_request_exception=False)
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {_assistant_token()}")
    recall = api.post(
        f"/api/v1/members/{member.pk}/recall/",
        {"surface": "assistant", "scope": {"kind": "profile"}, "query": "tea"},
        format="json",
    )
    write = api.post(
        f"/api/v1/members/{member.pk}/memories/",
        {
            "scope": {"kind": "session", "session_id": "s-1"},
            "category": "preference",
            "subject": "coffee",
            "body": "likes oat milk",
            "origin": "model-inferred",
        },
        format="json",
    )
    page = Client(raise_request_exception=False)
    page.force_login(member)
    listed = page.get("/profile/memory/")
    return {"recall": recall.status_code, "write": write.status_code, "page": listed.status_code}


def test_a_wrapped_key_that_does_not_unwrap_is_never_a_500(settings):
    """Attack (an operator who removed the old KEK before `keys_rotate --check` said so,
    or a key-store row altered): the member's wrapped data key no longer unwraps
    (`KeyUnwrapFailed`, a ValueError). Reads of sealed columns turn it into Unreadable,
    but `read_tokens` (recall's query tokens) and `write_key` (every write) let it
    escape: the recall and the write must answer 503 (or a clear refusal), never 500."""
    member = consenting_member()
    remember(member, subject="tea", body="Drinks quokkazine tea")
    store = envelope.key_store()
    record = store.latest(str(member.pk))
    altered = bytearray(record.wrapped)
    altered[-1] ^= 0x01
    store._run(
        "UPDATE member_keys SET wrapped = ? WHERE member_id = ? AND generation = ?",
        (bytes(altered), record.member_id, record.generation),
    )
    envelope.cache_clear()
    statuses = _recall_and_write(member)
    assert all(code < 500 or code == 503 for code in statuses.values()), statuses


def test_a_kek_file_caught_mid_write_is_a_503_not_a_500(settings, tmp_path):
    """Attack (a racing second worker at first start, or a deploy that rewrites the
    keyset file in place during a rotation): the KEK file exists but is empty or half
    written when a request reads it (`keyset_text` re-reads it on every unwrap; the
    generating process writes it after O_EXCL creation, so a second process that lost
    the race reads it at once). `keyset_parse` raises ImproperlyConfigured: every read
    and write that needs a key is a 500 instead of the key store's 503."""
    member = consenting_member()
    remember(member, subject="tea", body="Drinks quokkazine tea")
    settings.IRIS_KEK = ""
    partial = tmp_path / "kek.json"
    partial.write_text('{"primary": "session", "keys": {"sess')
    settings.IRIS_KEK_FILE = str(partial)
    envelope.cache_clear()
    statuses = _recall_and_write(member)
    assert all(code < 500 or code == 503 for code in statuses.values()), statuses


def test_production_settings_refuse_a_kek_that_is_not_a_keyset(tmp_path):
    """Attack (a misconfigured deployment): production settings check only that
    `IRIS_KEK` is non-empty or that `IRIS_KEK_FILE` exists. A KEK of `changeme`, an
    empty file, or a keyset with a 16-byte key starts Iris; the first remember is a 500
    (ImproperlyConfigured at request time). The issue asks for a clear refusal to
    start."""
    env = {
        **os.environ,
        "SECRET_KEY": "x" * 64,
        "IRIS_KEK": "changeme",
        "DJANGO_SETTINGS_MODULE": "iris_site.production_settings",
        "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
    }
    started = subprocess.run(
        [sys.executable, "-c", "import django; django.setup(); print('started')"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert "started" not in started.stdout, "production started with an invalid KEK"
    assert "key-encryption" in started.stderr, started.stderr[-800:]
