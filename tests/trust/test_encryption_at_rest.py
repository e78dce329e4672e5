"""Nothing readable at rest: a distinctive word written through every content path
(remember, edit, a conversation turn, short-term memory, a person's name, a relationship
note, an accepted correction, a consolidation, a recall record, an export) is nowhere in
a dump of the main database — `pg_dump` on PostgreSQL, the database file's own bytes on
SQLite — nor in the export files on disk. The member's email, which is not encrypted,
is found by the same search: the search works."""

import subprocess
import uuid
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.db import connection
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from hierarchy.consolidation import stm_consolidate
from iris_site.audit.events import Actor
from iris_site.keys import envelope
from iris_site.services import token_issue
from memory.enums import ScopeKind
from memory.models import MemoryEntry, RecallRecord
from memory.services import memory_edit, memory_notice_answer
from memory.turns import conversation_turn_append
from tests.datarights.factories import EXPORT, HARD_DELETE, process, submit
from tests.hierarchy.stm_factories import service_actor, write
from tests.iris_site.factories import ServiceClientFactory
from tests.memory.factories import consenting_member, remember

pytestmark = pytest.mark.django_db(transaction=True)


def new_marker() -> str:
    # Lower case, ending in digits: the stemmer keeps it whole, so an index row holding
    # the stem would hold the marker.
    return f"zqv{uuid.uuid4().hex[:10]}k7"


def write_everywhere(member, marker: str) -> None:
    actor = Actor.of(member)
    turn = conversation_turn_append(
        member=member,
        session_id="s-1",
        speaker="member",
        text=f"Please remember that {marker} helps my asthma",
        consumer="assistant",
        actor=actor,
    )
    entry = remember(
        member,
        category="medical",
        subject=f"inhaler {marker}",
        body=f"My inhaler is called {marker} and I use it daily",
        multi_actor={
            "actor_name": f"Robin {marker.capitalize()}",
            "relationship_note": f"my sister, who gave me {marker}",
        },
        provenance=[{"kind": "session-turn", "ref": str(turn.pk), "captured_at": turn.created_at}],
    ).entry
    memory_edit(entry=entry, actor=actor, body=f"My inhaler {marker} edited, used twice a day")
    stated = remember(member, subject=f"coffee {marker}", body="Takes coffee black").entry
    notice = remember(
        member,
        subject=f"coffee {marker}",
        body=f"Takes coffee with {marker} oat milk",
        origin="model-inferred",
        scope={"kind": "session", "session_id": "s-2"},
    ).notice
    assert notice is not None and stated.pk
    memory_notice_answer(notice=notice, accept=True, actor=actor)
    RecallRecord.objects.create(
        member=member,
        surface="notebook",
        consumer="notebook",
        scope_key="profile",
        context="health",
        returned_ids=[str(entry.pk)],
        rationales={str(entry.pk): f"matched '{marker}'"},
        created_at=timezone.now(),
    )
    write(member, content=f"talked about {marker} just now", category="medical")
    row = write(member, content=f"prefers {marker} morning walks")
    stm_consolidate(stm_id=row.pk, actor=service_actor(), consumer="assistant")
    export = process(submit(member, "export", {**EXPORT, "scopes": ["profile", "session"]}))
    assert export.status == "completed"


def main_database_dump() -> bytes:
    if connection.vendor == "postgresql":
        params = connection.get_connection_params()
        url = (
            f"postgresql://{params.get('user') or 'postgres'}@{params.get('host') or '127.0.0.1'}"
            f":{params.get('port') or 5432}/{connection.settings_dict['NAME']}"
        )
        return subprocess.run(  # noqa: S603 - the test database's own URL
            ["pg_dump", "--no-owner", f"--dbname={url}"],  # noqa: S607 - the machine's pg_dump
            check=True,
            capture_output=True,
        ).stdout
    connection.ensure_connection()
    # The database file as it would be copied: every page, free pages included.
    return connection.connection.serialize()


def _positions(data: bytes, needle: bytes) -> list[int]:
    found, at = [], data.find(needle)
    while at != -1:
        found.append(at)
        at = data.find(needle, at + 1)
    return found


def test_no_content_path_leaves_a_readable_word_in_a_dump_of_the_main_database(settings, tmp_path):
    settings.IRIS_DSAR_EXPORT_DIR = str(tmp_path / "exports")
    marker = new_marker()
    member = consenting_member("category:medical")
    member.email = f"{marker}-address@example.com"
    member.save(update_fields=["email"])

    write_everywhere(member, marker)

    dump = main_database_dump().lower()
    address = f"{marker}-address".encode()
    assert address in dump, "the search finds the unencrypted email"
    rest = dump.replace(address, b"")
    hits = [rest[max(0, at - 60) : at + 40] for at in _positions(rest, marker.encode())]
    assert not hits, hits[:5]
    exported = [path for path in Path(settings.IRIS_DSAR_EXPORT_DIR).rglob("*") if path.is_file()]
    assert exported, "the export wrote a file"
    for path in exported:
        assert marker.encode() not in path.read_bytes().lower(), path.name


# --- A restored backup -------------------------------------------------------------------


@contextmanager
def served_from(database: str):
    """Iris's connection reads `database` (a restored copy) instead of the test's own."""
    original = connection.settings_dict["NAME"]
    connection.close()
    connection.settings_dict["NAME"] = database
    try:
        yield
    finally:
        connection.close()
        connection.settings_dict["NAME"] = original


def _postgres(*args: str, database: str) -> None:
    params = connection.get_connection_params()
    url = (
        f"postgresql://{params.get('user') or 'postgres'}@{params.get('host') or '127.0.0.1'}"
        f":{params.get('port') or 5432}/{database}"
    )
    subprocess.run(  # noqa: S603 - the machine's PostgreSQL tools on the test's databases
        [*args, f"--dbname={url}"], check=True, capture_output=True
    )


@pytest.mark.skipif(connection.vendor != "postgresql", reason="pg_dump and pg_restore")
def test_a_backup_restored_after_an_erasure_does_not_bring_the_member_back(settings, tmp_path):
    settings.IRIS_DSAR_EXPORT_DIR = str(tmp_path / "exports")
    erased, kept = consenting_member(), consenting_member()
    gone, stays = new_marker(), new_marker()
    for member, marker in ((erased, gone), (kept, stays)):
        remember(member, subject=f"tea {marker}", body=f"Drinks {marker} tea every evening")
        conversation_turn_append(
            member=member,
            session_id="s-1",
            speaker="member",
            text=f"I love {marker} tea",
            consumer="assistant",
            actor=Actor.of(member),
        )
    _, assistant = token_issue(owner=ServiceClientFactory(consumer="assistant"))
    backup = tmp_path / "backup.dump"
    live = connection.settings_dict["NAME"]
    _postgres("pg_dump", "--format=custom", f"--file={backup}", database=live)

    # The member's memory is erased; their keys are destroyed in the key store.
    erasure = process(submit(erased, "delete", {**HARD_DELETE, "scopes": list(ScopeKind.values)}))
    assert erasure.status == "completed"
    assert envelope.key_store().latest(str(erased.pk)).destroyed

    restored = f"{live}_restored"
    with connection.cursor() as cursor:
        cursor.execute(f'DROP DATABASE IF EXISTS "{restored}"')
        cursor.execute(f'CREATE DATABASE "{restored}"')
    try:
        _postgres("pg_restore", "--no-owner", str(backup), database=restored)
        envelope.cache_clear()  # a fresh process: nothing cached
        with served_from(restored):
            assert MemoryEntry.objects.filter(member=erased).exists(), "the copy holds the rows"
            api = APIClient()
            api.credentials(HTTP_AUTHORIZATION=f"Bearer {assistant}")
            for member, marker, readable in ((erased, gone, False), (kept, stays, True)):
                answer = api.post(
                    f"/api/v1/members/{member.pk}/recall/",
                    {"surface": "assistant", "scope": {"kind": "profile"}, "query": "tea"},
                    format="json",
                )
                assert answer.status_code == 200, answer.content
                assert (marker.encode() in answer.content) is readable
                page = Client()
                page.force_login(member)
                for path in ("/profile/memory/", "/profile/memory/people/"):
                    shown = page.get(path)
                    assert shown.status_code == 200, path
                    assert (marker.encode() in shown.content.lower()) is readable, path
                bundle = process(submit(member, "export", EXPORT))
                assert bundle.status == "completed"
                exported = b"".join(
                    path.read_bytes()
                    for path in Path(settings.IRIS_DSAR_EXPORT_DIR).rglob("*")
                    if path.is_file() and str(member.pk) in str(path)
                )
                assert marker.encode() not in exported.lower()
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f'DROP DATABASE IF EXISTS "{restored}"')
