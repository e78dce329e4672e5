"""Forget means forget: every forgetting path, then a search of every table, every text
and JSON column (from the schema, not a list) and every file the app wrote for the
forgotten text. Zero hits; the audit chain still verifies.

Each case gives one member memories carrying a unique marker, in every place that text
travels: the entry (body, subject, relationship note), the conversation turn it was
stated in, a recall record's rationale, a short-term row (sensitive, so encrypted at
rest) and an export file. Stores encrypted at rest cannot be searched as plain text;
they are searched through their registry `residue` function.
"""

import json
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from django.apps import apps
from django.core.management import call_command
from django.db import models
from django.db.models.functions import Cast
from django.utils import timezone

from datarights.models import DataRightsRequest
from hierarchy.stm import stm_write
from iris_site.audit.events import Actor
from iris_site.keys.fields import SealedTextField
from memory.entities.services import person_forget
from memory.enums import Lifecycle
from memory.forgetting.erasure import memory_erasure_residue
from memory.forgetting.notebooks import memory_forget_notebook
from memory.forgetting.services import (
    memory_clear_purge_due,
    memory_clear_request,
    memory_forget_category,
)
from memory.forgetting.stores import registered_stores
from memory.models import MemoryEntry, RecallRecord
from memory.pauses import memory_pause
from memory.sweeps.retention import retention_sweep
from memory.turns import conversation_turn_append
from tests.conftest import http_request
from tests.consent.factories import record
from tests.datarights.factories import EXPORT, process, submit
from tests.memory.factories import consenting_member, remember
from tests.stepup import step_up_token
from tests.trust.schema_search import _file_texts

pytestmark = pytest.mark.django_db(transaction=True)

SESSION = "s-forget-1"
TEXT_FIELDS = (models.CharField, models.TextField, models.JSONField)


@pytest.fixture(autouse=True)
def export_dir(settings, tmp_path) -> Path:
    settings.IRIS_DSAR_EXPORT_DIR = str(tmp_path / "exports")
    return Path(settings.IRIS_DSAR_EXPORT_DIR)


def new_marker() -> str:
    # Lower case and ending in digits: the stemmer leaves it whole, so a term index row
    # or a corpus statistic holding it would be found too.
    return f"zqv{uuid.uuid4().hex[:10]}k7"


def scope_for(path: str) -> dict:
    if path == "notebook":
        return {"kind": "notebook", "notebook_id": "nb-1"}
    if path == "retention":
        return {"kind": "session", "session_id": SESSION}
    return {"kind": "profile"}


def seed(member, marker: str, path: str) -> MemoryEntry:
    """One memory carrying `marker` everywhere its text goes."""
    actor = Actor.of(member)
    turn = conversation_turn_append(
        member=member,
        session_id=SESSION,
        # Compaction folds the member's expired turns into a summary on purpose (that is
        # what it is for); the assistant's turns are retired without being copied.
        speaker="assistant" if path == "retention" else "member",
        text=f"Please remember that {marker} helps my asthma",
        consumer="assistant",
        actor=actor,
    )
    fields = {
        "scope": scope_for(path),
        "category": "medical",
        "subject": f"inhaler {marker}",
        "body": f"My inhaler is called {marker} and I use it daily",
        "provenance": [
            {"kind": "session-turn", "ref": str(turn.pk), "captured_at": turn.created_at}
        ],
    }
    if path == "actor":
        fields["multi_actor"] = {
            "actor_name": "Robin Example",
            "relationship_note": f"my sister, who gave me {marker}",
        }
    entry = remember(member, **fields).entry
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
    stm_write(
        member=member,
        scope_kind="user_session",
        scope_id=SESSION,
        category="medical",
        content=f"talked about {marker} just now",
        actor=actor,
        related_entry_ids=[entry.pk],
    )
    export = process(submit(member, "export", {**EXPORT, "scopes": ["profile", "session"]}))
    assert export.status == "completed"
    return entry


def texts_of(marker: str) -> list[str]:
    return [
        f"My inhaler is called {marker} and I use it daily",
        f"inhaler {marker}",
        f"my sister, who gave me {marker}",
        f"Please remember that {marker} helps my asthma",
        f"talked about {marker} just now",
    ]


def schema_hits(marker: str) -> list[str]:
    """Every row of every model whose text or JSON column holds the marker."""
    hits = []
    for model in apps.get_models(include_auto_created=True):
        for field in model._meta.concrete_fields:
            if not isinstance(field, TEXT_FIELDS):
                continue
            rows = model._default_manager.all()
            if isinstance(field, SealedTextField):
                # Sealed: searched opened with the live keys (what a reader gets back), so
                # a value that was sealed rather than erased is still found.
                count = sum(
                    1
                    for value in rows.values_list(field.name, flat=True)
                    if value
                    and marker.casefold() in json.dumps(value, ensure_ascii=False).casefold()
                )
                if count:
                    hits.append(f"{model._meta.db_table}.{field.column}: {count}")
                continue
            if isinstance(field, models.JSONField):
                rows = rows.annotate(_as_text=Cast(field.name, models.TextField()))
                lookup = "_as_text__icontains"
            else:
                lookup = f"{field.name}__icontains"
            count = rows.filter(**{lookup: marker}).count()
            if count:
                hits.append(f"{model._meta.db_table}.{field.column}: {count}")
    return hits


def file_hits(root: Path, marker: str) -> list[str]:
    if not root.exists():
        return []
    return [
        str(path)
        for path in root.rglob("*")
        if path.is_file() and marker.encode() in _file_bytes(path).lower()
    ]


def _file_bytes(path: Path) -> bytes:
    """A file's bytes as a reader would see them: an export sealed under the member's
    key opened with it, an export zip's members unpacked (`schema_search._file_texts`)."""
    return "\n".join(_file_texts(path)).encode("utf-8")


# Where the seed puts the marker beyond a plain-text search's sight: a sensitive
# short-term row (encrypted at rest) and, in general, export files (possibly encrypted).
SEEDED_ENCRYPTED_STORES = {"short-term-memory", "export-files", "entities"}


def encrypted_residue(member, entry_ids, marker: str, *, purge: bool) -> dict:
    """Stores a plain-text search cannot see, searched through their registry entry."""
    encrypted = {s.name for s in registered_stores() if s.encrypted}
    residue = memory_erasure_residue(
        member_id=member.pk, entry_ids=entry_ids, texts=texts_of(marker), purge=purge
    )
    return {name: count for name, count in residue.items() if name in encrypted}


def forget_over_http(live_server, member, entry) -> None:
    token = step_up_token(member)
    response = http_request(
        f"{live_server.url}/api/v1/me/memories/{entry.pk}/forget/", method="POST", token=token
    )
    assert response.status == 200, response.body
    assert response.body["lifecycle"] == "tombstoned"


def run_path(path: str, member, entry, request) -> bool:
    """Forget `entry` the way `path` does; returns whether the rows are purged."""
    actor = Actor.of(member)
    later = timezone.now() + timedelta(days=400)
    if path == "one":
        forget_over_http(request.getfixturevalue("live_server"), member, entry)
    elif path == "category":
        memory_forget_category(member=member, category="medical", actor=actor)
    elif path == "actor":
        person_forget(member=member, actor_handle=entry.actor_handle, actor=actor)
    elif path == "cascade":
        # The withdrawal's signal runs the cascade after the consent commits.
        record(member, "category:medical", kind="withdrawal")
    elif path == "notebook":
        memory_forget_notebook(member=member, notebook_id="nb-1", actor=actor)
    elif path == "retention":
        memory_pause(entry=entry, actor=actor)  # a paused raw entry is retired, not summarized
        retention_sweep(now=later)
    elif path in ("dsar-soft", "dsar-hard"):
        soft = path == "dsar-soft"
        payload = {"mode": "soft" if soft else "hard", "scopes": ["profile"]}
        if soft:
            payload["retention_grace_ms"] = 60_000
        delete = process(submit(member, "delete", payload))
        if soft:
            delete = process(delete, now=timezone.now() + timedelta(minutes=5))
        assert delete.status == "completed", delete.progress
        return True
    elif path == "full-clear":
        memory_clear_request(member=member, actor=actor)
        memory_clear_purge_due(now=timezone.now() + timedelta(days=8))
        return True
    return False


PATHS = [
    "one",
    "category",
    "actor",
    "cascade",
    "notebook",
    "retention",
    "dsar-soft",
    "dsar-hard",
    "full-clear",
]


@pytest.mark.parametrize("path", PATHS)
def test_every_forgetting_path_leaves_no_trace_anywhere(path, request, export_dir):
    # given: a member whose memory carries a marker in every place its text travels
    member = consenting_member("category:medical")
    marker = new_marker()
    entry = seed(member, marker, path)
    assert schema_hits(marker), "the seed must put the marker in the database"
    assert file_hits(export_dir, marker), "the seed must put the marker in an export file"
    # ...and where only a registered store's residue search can see it
    seeded = encrypted_residue(member, [str(entry.pk)], marker, purge=False)
    assert set(seeded) == SEEDED_ENCRYPTED_STORES, seeded
    # when
    purged = run_path(path, member, entry, request)
    # then: no table, no column, no file holds the text
    assert schema_hits(marker) == []
    assert file_hits(export_dir, marker) == []
    assert encrypted_residue(member, [str(entry.pk)], marker, purge=purged) == {}
    # the forgotten entry keeps ids, times and a keyed digest only
    remaining = MemoryEntry.objects.filter(pk=entry.pk).first()
    if purged:
        assert remaining is None
    else:
        assert remaining.lifecycle == Lifecycle.TOMBSTONED
        assert remaining.body == "(forgotten)" and remaining.subject == ""
        assert len(remaining.erased_digest) == 64
    # no sealed copy of the erased text is kept either
    assert not DataRightsRequest.objects.filter(member=member).exclude(work_state="").exists()
    # and the audit chain still verifies
    call_command("audit_verify")
