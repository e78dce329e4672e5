"""Processing: the export bundle, hard and soft deletes with the forget-completeness
check, access reports, and jobs that resume after a crash without loss or duplication."""

import hashlib
import io
import json
import zipfile
from datetime import timedelta

import pytest
from django.apps import apps
from django.core.management import call_command
from django.db import models
from django.utils import timezone

from datarights import processing
from datarights.crypto import decrypt_lines
from datarights.enums import RequestStatus
from datarights.export import (
    ZIP_MEMBERS,
    artifact_path,
    member_dir,
    open_sealed_chunks,
    read_member,
)
from datarights.models import DataRightsRequest
from datarights.policy import deleted_set_fingerprint
from datarights.processing import datarights_remove_expired_downloads, datarights_run_due
from datarights.services import DownloadGone, datarights_cancel, datarights_download_open
from iris_site.audit.enums import ActorType
from iris_site.audit.events import Actor, audit_event_append
from iris_site.enums import Consumer
from iris_site.models import AuditEvent
from memory.access.capabilities import capabilities_for
from memory.forgetting import erasure
from memory.forgetting.services import memory_tombstone
from memory.forgetting.stores import (
    ContentStore,
    ExtentKind,
    content_store_register,
    content_store_unregister,
)
from memory.models import ConversationTurn, MemoryEntry, MemoryRevision, RecallRecord
from memory.recall.service import recall_request_build, recall_run
from memory.selectors import memory_entry_list
from memory.services import memory_edit
from memory.turns import conversation_turn_append
from tests.consent.factories import opt
from tests.datarights.factories import (
    DAY_MS,
    EXPORT,
    HARD_DELETE,
    SOFT_DELETE,
    audit_for,
    consenting_member,
    process,
    remember,
    submit,
    trail_events,
)
from tests.iris_site.factories import OperatorFactory

pytestmark = pytest.mark.django_db

COFFEE = "I take my coffee black with a little cardamom"
COFFEE_V2 = "I take my coffee black, no sugar, with cardamom"
COFFEE_V3 = "These days I take my coffee with oat milk"
WALKS = "I walk along the canal every Sunday morning"
OTHER = "The other member secretly collects antique barometers"

EVERY_EXTENT = dict.fromkeys(ExtentKind, "a test store")


def _entry(member, body, **fields):
    return remember(member, body=body, subject=fields.pop("subject", body[:20]), **fields).entry


def _recall(member, query):
    request = recall_request_build(
        member_id=member.pk,
        capabilities=capabilities_for(Consumer.NOTEBOOK),
        surface="notebook",
        scope={"kind": "profile"},
        query=query,
    )
    return recall_run(request=request, actor=Actor.system())


def _bundle(request) -> dict:
    return json.loads(read_member(artifact_path(request)))


def _everything_text() -> str:
    """Every row of every table, as text: what 'no table holds it' is checked against."""
    chunks = []
    for model in apps.get_models():
        fields = [
            f.attname
            for f in model._meta.concrete_fields
            if isinstance(f, models.CharField | models.TextField | models.JSONField)
        ]
        if fields:
            chunks.extend(
                json.dumps(list(row), default=str) for row in model.objects.values_list(*fields)
            )
    return "\n".join(chunks).casefold()


# --- export --------------------------------------------------------------------------------


def test_the_export_holds_every_revision_of_every_included_entry_and_nothing_else():
    # given
    member = consenting_member()
    coffee = _entry(member, COFFEE)
    memory_edit(entry=coffee, actor=Actor.of(member), body=COFFEE_V2)
    memory_edit(entry=coffee, actor=Actor.of(member), body=COFFEE_V3)
    walks = _entry(member, WALKS, scope={"kind": "session", "session_id": "s-1"})
    notebook = _entry(
        member,
        "Chapter four needs a better ending",
        scope={"kind": "notebook", "notebook_id": "nb-1"},
    )
    conversation_turn_append(
        member=member,
        session_id="s-1",
        speaker="member",
        text="Hello from the session",
        consumer="assistant",
        actor=Actor.of(member),
    )
    other = consenting_member()
    other_entry = _entry(other, OTHER)
    # when
    request = process(submit(member, "export", EXPORT))
    # then
    assert request.status == RequestStatus.COMPLETED
    raw = b"".join(open_sealed_chunks(artifact_path(request)))  # the zip, sealed on disk
    assert request.result_fingerprint == hashlib.sha256(raw).hexdigest()
    bundle = json.loads(read_member(artifact_path(request)))
    entries = {e["id"]: e for e in bundle["entries"]}
    assert set(entries) == {str(coffee.pk), str(walks.pk)}  # notebook not in the scopes
    coffee_revisions = entries[str(coffee.pk)]["revisions"]
    assert [r["number"] for r in coffee_revisions] == [1, 2, 3]
    assert [r["content"]["body"] for r in coffee_revisions] == [COFFEE, COFFEE_V2, COFFEE_V3]
    assert MemoryRevision.objects.filter(entry=coffee).count() == len(coffee_revisions)
    assert bundle["session_memory"]["conversation_turns"][0]["text"] == "Hello from the session"
    assert bundle["session_memory"]["short_term_memory"] == []
    assert {c["consent_type"] for c in bundle["consents"]} >= {"data_processing", "data_storage"}
    assert "opt_outs" in bundle and "art15" in bundle and bundle["art15"]["rights"]
    assert "scene_memory" not in bundle and "pose_memory" not in bundle
    path = artifact_path(request)
    text = "".join(read_member(path, name).decode() for name in ZIP_MEMBERS)
    assert COFFEE_V3 in read_member(path, "summary.html").decode()
    assert OTHER not in text and str(other_entry.pk) not in text and str(other.pk) not in text
    # The member's audit chain (whole, so it verifies) names ids of every scope; no more.
    scoped = {k: v for k, v in bundle.items() if k not in ("audit_proof", "audit_chain")}
    assert str(notebook.pk) not in json.dumps(scoped)
    assert request.download_expires_at > timezone.now()
    assert audit_for(request, "datarights.request.completed")[0].payload["result_fingerprint"] == (
        request.result_fingerprint
    )
    assert COFFEE not in json.dumps([e.payload for e in AuditEvent.objects.all()])


def test_the_export_says_who_the_memories_are_about_and_since_when():
    member = consenting_member()
    remember(
        member,
        category="relationship",
        subject="job",
        body="Sam works at the bakery",
        multi_actor={"actor_name": "Samwise Example", "relationship_note": "my sister"},
    )
    notebook = _entry(member, WALKS, scope={"kind": "notebook", "notebook_id": "nb-1"})
    request = process(submit(member, "export", EXPORT))
    graph = _bundle(request)["people_and_topics"]
    names = {e["kind"]: e["name"] for e in graph["entities"] if e["kind"] != "self"}
    assert names == {"person": "Samwise Example", "subject": "job"}
    assert {(r["type"], r["note"], r["valid_to"]) for r in graph["relationships"]} == {
        ("sister", "my sister", None),
        ("about", "", None),
    }
    assert str(notebook.pk) not in json.dumps(graph)  # notebook memory is not in the scopes
    # the readable summary says it in words
    summary = read_member(artifact_path(request), "summary.html").decode()
    assert "Who and what your memories are about" in summary
    assert "<strong>Samwise Example</strong> (a person" in summary
    assert "<td>you</td><td>sister</td><td>Samwise Example</td>" in summary


def test_the_export_carries_the_opt_out_ledger():
    member = consenting_member()
    for opted_out in (True, False, True):
        opt(member, "embodied", opted_out)
    request = process(submit(member, "export", EXPORT))
    ledger = _bundle(request)["opt_outs"]["opt_out_ledger"]
    settings = _bundle(request)["opt_outs"]["memory_settings"]
    assert settings["stop_using"] is False
    assert [(e["category"], e["kind"]) for e in ledger] == [
        ("embodied", "opt-out"),
        ("embodied", "opt-in"),
        ("embodied", "opt-out"),
    ]


def test_pose_is_exported_only_with_its_flag_and_marked_aggregate():
    member = consenting_member("sensitive_data")
    pose = _entry(
        member,
        "Shoulders align best at a fifteen degree tilt",
        category="spatial",
        scope={
            "kind": "pose",
            "session_id": "s",
            "scene_id": "sc",
            "pose_id": "p",
            "avatar_id": "a",
        },
    )
    request = process(submit(member, "export", {"scopes": ["pose"], "include_pose_memory": True}))
    bundle = _bundle(request)
    assert bundle["pose_memory"]["biometric_aggregate_only"] is True
    assert [e["id"] for e in bundle["pose_memory"]["entries"]] == [str(pose.pk)]
    assert bundle["entries"] == []


def test_an_encrypted_export_opens_only_with_the_passphrase():
    member = consenting_member()
    _entry(member, COFFEE)
    request = process(
        submit(member, "export", {**EXPORT, "encrypted": True}, passphrase="purple elephant 42")
    )
    assert request.status == RequestStatus.COMPLETED and request.artifact_encrypted
    assert request.work_state == ""  # the derived key is gone
    sealed = artifact_path(request).read_bytes()
    assert COFFEE.encode() not in sealed
    plain = b"".join(decrypt_lines(sealed.splitlines(keepends=True), "purple elephant 42"))
    assert hashlib.sha256(plain).hexdigest() == request.result_fingerprint
    with zipfile.ZipFile(io.BytesIO(plain)) as archive:
        assert json.loads(archive.read("data.json"))["entries"][0]["body"] == COFFEE


def test_a_download_is_recorded_and_ends_with_its_window():
    member = consenting_member()
    _entry(member, COFFEE)
    request = process(submit(member, "export", EXPORT))
    download = datarights_download_open(request=request, actor=Actor.of(member))
    assert download.path.exists() and download.filename.endswith(".zip")
    assert audit_for(request, "datarights.request.downloaded")
    later = timezone.now() + timedelta(days=8)
    assert datarights_remove_expired_downloads(now=later) == 1
    request.refresh_from_db()
    assert request.artifact_removed_at is not None and not download.path.exists()
    assert trail_events(request)[-1] == "artifact-removed"
    with pytest.raises(DownloadGone) as gone:
        datarights_download_open(request=request, actor=Actor.of(member))
    assert gone.value.status_code == 410


# --- hard delete ---------------------------------------------------------------------------


def test_after_a_hard_delete_nothing_holds_the_text_the_chain_verifies_and_the_proof_recomputes():
    # given: the text lives in an entry with history, a turn, a recall record, an export
    member = consenting_member("sensitive_data", "category:medical")
    coffee = _entry(member, COFFEE)
    memory_edit(entry=coffee, actor=Actor.of(member), body=COFFEE_V2)
    gone = _entry(member, WALKS)
    memory_tombstone(entry=gone, actor=Actor.of(member))  # forgotten: text erased, row kept
    medical = _entry(member, "My asthma inhaler is the blue one", category="medical")
    conversation_turn_append(
        member=member,
        session_id="s-9",
        speaker="member",
        text=f"By the way: {COFFEE}.",
        consumer="assistant",
        actor=Actor.of(member),
    )
    kept = _entry(
        member, "I like sailing on the lake", scope={"kind": "session", "session_id": "s-2"}
    )
    assert _recall(member, "coffee cardamom").entries
    old_export = process(submit(member, "export", {"scopes": ["profile"]}))
    assert COFFEE_V2 in read_member(artifact_path(old_export)).decode()
    other = consenting_member()
    other_entry = _entry(other, OTHER)
    deleted_ids = sorted(str(e.pk) for e in (coffee, gone, medical))
    # when
    request = process(
        submit(
            member,
            "delete",
            {**HARD_DELETE, "categories": [], "purge_consent_ledger": False},
        )
    )
    # then
    assert request.status == RequestStatus.COMPLETED, request.progress
    assert request.deleted_ids == deleted_ids
    assert request.result_fingerprint == deleted_set_fingerprint(deleted_ids)
    assert request.work_state == ""
    everything = _everything_text()
    for text in (COFFEE, COFFEE_V2, WALKS, "asthma inhaler"):
        assert text.casefold() not in everything, text
    assert not MemoryEntry.objects.filter(pk__in=deleted_ids).exists()
    assert not MemoryRevision.objects.filter(entry_id__in=deleted_ids).exists()
    assert all(
        not set(deleted_ids) & set(r.returned_ids)
        for r in RecallRecord.objects.filter(member=member)
    )
    assert not list(member_dir(member.pk).glob("*"))
    old_export.refresh_from_db()
    assert old_export.artifact_removed_at is not None
    # what was not asked for survives
    assert MemoryEntry.objects.filter(pk=kept.pk).exists()
    assert MemoryEntry.objects.get(pk=other_entry.pk).body == OTHER
    # every erasure is on the episodic chain, with ids and counts only
    for action in ("memory.turns.purged", "memory.recalls.scrubbed", "memory.entries.purged"):
        assert AuditEvent.objects.filter(action=action, target_member_id=member.pk).exists()
    assert audit_for(old_export, "datarights.request.artifact_removed")
    # the episodic chain still verifies, and kept the ids
    call_command("audit_verify")
    purged = AuditEvent.objects.get(action="memory.entries.purged", target_member_id=member.pk)
    assert purged.payload["entry_ids"] == deleted_ids
    steps = [e.payload.get("step") for e in audit_for(request, "datarights.request.step_completed")]
    # the last step erases what no entry is tied to in the delete's extent (its scopes)
    assert steps == ["snapshot", "collect-text", "erase-entries", "erase-member-stores"]


def test_a_hard_delete_by_category_purges_the_consent_ledger_when_asked():
    member = consenting_member("category:medical")
    medical = _entry(member, "My asthma inhaler is the blue one", category="medical")
    _entry(member, COFFEE)
    request = process(
        submit(
            member,
            "delete",
            {"mode": "hard", "categories": ["medical"], "purge_consent_ledger": True},
        )
    )
    assert request.status == RequestStatus.COMPLETED
    assert request.deleted_ids == [str(medical.pk)]
    from consent.selectors import consent_event_list, consent_ledger_verify

    assert (
        not consent_event_list(member_id=member.pk).filter(consent_type="category:medical").exists()
    )
    assert consent_ledger_verify(member_id=member.pk) is None
    assert AuditEvent.objects.filter(
        action="consent.ledger.purged", target_member_id=member.pk
    ).exists()
    call_command("audit_verify")


def test_residue_left_anywhere_fails_the_request_and_alerts_operators():
    member = consenting_member()
    _entry(member, COFFEE)
    # A copy of the words in a store the delete reaches, which its erasure misses.
    content_store_register(
        ContentStore(
            "a-leaky-store",
            erase=lambda erasure: 0,
            residue=lambda erasure: int(erasure.matcher.text_in(f"copied: {COFFEE}")),
            extents=EVERY_EXTENT,
        )
    )
    try:
        request = process(submit(member, "delete", HARD_DELETE))
    finally:
        content_store_unregister("a-leaky-store")
    assert request.status == RequestStatus.FAILED
    assert request.failure_code == "forget-incomplete"
    alert = AuditEvent.objects.get(action="datarights.forget_check.failed")
    assert alert.severity == "critical" and alert.payload["residue"] == {"a_leaky_store": 1}
    assert COFFEE not in json.dumps(alert.payload)
    assert request.work_state == ""  # a failed request keeps none of the erased text
    assert not request.result_fingerprint


def test_a_registered_store_is_purged_and_searched():
    member = consenting_member()
    _entry(member, COFFEE)
    seen = {"erase": []}

    def erase(erasure):
        seen["erase"] += erasure.entry_ids  # the entries, then the extent (no entry)
        return 2

    def residue(erasure):
        return 1 if erasure.matcher.text_in(COFFEE) else 0

    content_store_register(
        ContentStore("a-new-store", erase=erase, residue=residue, extents=EVERY_EXTENT)
    )
    try:
        request = process(submit(member, "delete", HARD_DELETE))
    finally:
        content_store_unregister("a-new-store")
    assert seen["erase"] == request.deleted_ids
    assert request.status == RequestStatus.FAILED  # it claims the text is still there


# --- soft delete ---------------------------------------------------------------------------


def test_a_soft_delete_hides_at_once_and_can_be_taken_back_inside_the_window():
    member = consenting_member()
    coffee = _entry(member, COFFEE)
    request = process(submit(member, "delete", SOFT_DELETE))
    assert request.status == RequestStatus.IN_PROGRESS and request.grace_ends_at
    assert "held" in trail_events(request)
    assert list(memory_entry_list(member_id=member.pk)) == []
    assert _recall(member, "coffee cardamom").entries == ()
    coffee.refresh_from_db()
    assert coffee.lifecycle == "active" and coffee.body == COFFEE  # untouched, only hidden
    # when the member takes it back
    cancelled = datarights_cancel(request=request, actor=Actor.of(member))
    # then
    assert cancelled.status == RequestStatus.CANCELLED
    assert trail_events(cancelled)[-2:] == ["reactivated", "cancelled"]
    assert [e.pk for e in memory_entry_list(member_id=member.pk)] == [coffee.pk]
    assert [e.entry_id for e in _recall(member, "coffee cardamom").entries] == [str(coffee.pk)]
    assert AuditEvent.objects.filter(action="memory.entries.released").exists()


def test_a_soft_delete_is_purged_when_the_window_ends():
    member = consenting_member()
    coffee = _entry(member, COFFEE)
    request = process(submit(member, "delete", SOFT_DELETE))
    assert datarights_run_due(now=timezone.now() + timedelta(days=1))["resumed"] == 0
    request.refresh_from_db()
    assert request.status == RequestStatus.IN_PROGRESS
    # when the grace window is over
    datarights_run_due(now=request.grace_ends_at + timedelta(seconds=1))
    request.refresh_from_db()
    # then
    assert request.status == RequestStatus.COMPLETED
    assert request.result_fingerprint == deleted_set_fingerprint([str(coffee.pk)])
    assert not MemoryEntry.objects.filter(pk=coffee.pk).exists()
    purged = AuditEvent.objects.get(action="memory.entries.purged", target_member_id=member.pk)
    assert purged.payload["entry_ids"] == [str(coffee.pk)]
    assert COFFEE.casefold() not in _everything_text()
    with pytest.raises(Exception):  # noqa: B017 - too late to take it back
        datarights_cancel(request=request, actor=Actor.of(member))


# --- access --------------------------------------------------------------------------------


def _memory_state(member):
    return (
        list(MemoryEntry.objects.filter(member=member).order_by("pk").values()),
        MemoryRevision.objects.filter(member_id=member.pk).count(),
        ConversationTurn.objects.filter(member=member).count(),
        RecallRecord.objects.filter(member=member).count(),
    )


def test_access_reports_counts_and_operator_actions_without_changing_anything():
    member = consenting_member()
    _entry(member, COFFEE)
    _entry(member, WALKS, scope={"kind": "session", "session_id": "s-1"})
    operator = OperatorFactory(role="t&s")
    audit_event_append(
        action="inspection.request.transitioned",
        policy_id="iris-test-v1",
        actor=Actor.of(operator),
        target_member_id=member.pk,
        payload={"inspection_id": "7d5c7f0e-8a3b-4f5e-9b8d-2f3e4a5b6c7d"},
    )
    before = _memory_state(member)
    request = process(submit(member, "access"))
    assert request.status == RequestStatus.COMPLETED and request.result_fingerprint
    assert _memory_state(member) == before
    report = request.access_report
    assert sum(row["count"] for row in report["memory"]["entries"]) == 2
    assert report["operator_actions"][0]["action"] == "inspection.request.transitioned"
    assert report["operator_actions"][0]["actor_role"] == "t&s"
    assert COFFEE not in json.dumps(report)


# --- crashes ------------------------------------------------------------------------------------


class Crash(RuntimeError):
    pass


def test_a_delete_crashing_between_steps_resumes_without_loss_or_duplication(monkeypatch):
    member = consenting_member()
    coffee = _entry(member, COFFEE)
    conversation_turn_append(
        member=member,
        session_id="s-1",
        speaker="member",
        text=COFFEE,
        consumer="assistant",
        actor=Actor.of(member),
    )
    _recall(member, "coffee cardamom")
    request = submit(member, "delete", HARD_DELETE)

    def crash(**kwargs):
        raise Crash("worker died")

    # The recall-record store crashes after the turns store has run, inside the erasure.
    monkeypatch.setattr(erasure, "memory_recall_records_scrub", crash)
    with pytest.raises(Crash):
        processing.datarights_process(request_id=request.pk)
    request.refresh_from_db()
    assert request.status == RequestStatus.IN_PROGRESS
    assert request.progress["done"] == ["snapshot", "collect-text"]
    assert ConversationTurn.objects.filter(member=member).exists()  # rolled back whole
    assert MemoryEntry.objects.filter(pk=coffee.pk).exists()  # nothing half-done
    # when the job runs again
    monkeypatch.undo()
    request = process(request)
    # then
    assert request.status == RequestStatus.COMPLETED
    assert (
        len(AuditEvent.objects.filter(action="memory.turns.purged", target_member_id=member.pk))
        == 1
    )
    assert (
        len(AuditEvent.objects.filter(action="memory.entries.purged", target_member_id=member.pk))
        == 1
    )
    steps = [e.payload["step"] for e in audit_for(request, "datarights.request.step_completed")]
    assert len(steps) == len(set(steps))
    assert trail_events(request).count("completed") == 1
    assert COFFEE.casefold() not in _everything_text()
    call_command("audit_verify")


def test_a_crash_inside_a_batched_purge_resumes_at_its_cursor(monkeypatch):
    member = consenting_member()
    entries = [
        _entry(member, f"Fact number {n} about tea and biscuits", subject=f"t{n}") for n in range(5)
    ]
    request = submit(member, "delete", HARD_DELETE)
    monkeypatch.setattr(processing, "BATCH", 2)
    real = processing.memory_purge_entries
    calls = {"n": 0}

    def flaky(**kwargs):
        calls["n"] += 1
        if calls["n"] == 2:
            raise Crash("worker died mid-purge")
        return real(**kwargs)

    monkeypatch.setattr(processing, "memory_purge_entries", flaky)
    with pytest.raises(Crash):
        processing.datarights_process(request_id=request.pk)
    request.refresh_from_db()
    assert request.progress["cursors"]["erase-entries"] == 2
    assert MemoryEntry.objects.filter(member=member).count() == 3
    request = process(request)
    assert request.status == RequestStatus.COMPLETED
    assert request.deleted_ids == sorted(str(e.pk) for e in entries)
    purges = AuditEvent.objects.filter(action="memory.entries.purged", target_member_id=member.pk)
    purged_ids = [i for e in purges for i in e.payload["entry_ids"]]
    assert sorted(purged_ids) == request.deleted_ids  # each exactly once


def test_an_export_crashing_after_writing_rewrites_the_same_bundle(monkeypatch):
    member = consenting_member()
    _entry(member, COFFEE)
    request = submit(member, "export", EXPORT)

    def crash(path):
        raise Crash("worker died before recording the file")

    monkeypatch.setattr(processing, "file_sha256", crash)
    with pytest.raises(Crash):
        processing.datarights_process(request_id=request.pk)
    request.refresh_from_db()
    assert request.status == RequestStatus.IN_PROGRESS and not request.artifact_name
    name = f"{request.pk}.zip.sealed"
    first = b"".join(open_sealed_chunks(member_dir(member.pk) / name))
    monkeypatch.undo()
    request = process(request)
    assert request.status == RequestStatus.COMPLETED
    assert sorted(p.name for p in member_dir(member.pk).iterdir()) == [name]
    # same document, same fingerprint (sealed afresh: the file's bytes differ)
    assert b"".join(open_sealed_chunks(artifact_path(request))) == first
    assert request.result_fingerprint == hashlib.sha256(first).hexdigest()
    assert trail_events(request).count("completed") == 1


def test_a_job_that_keeps_crashing_is_failed_for_an_operator(monkeypatch):
    member = consenting_member()
    _entry(member, COFFEE)
    request = submit(member, "delete", HARD_DELETE)

    def crash(**kwargs):
        raise Crash("always")

    monkeypatch.setattr(erasure, "memory_recall_records_scrub", crash)
    for _ in range(processing.MAX_ATTEMPTS + 1):
        with pytest.raises(Crash):
            processing.datarights_process(request_id=request.pk)
    assert processing.datarights_process(request_id=request.pk) == RequestStatus.FAILED
    request.refresh_from_db()
    assert request.failure_code == "processing-error"
    assert AuditEvent.objects.get(action="datarights.processing.stuck").severity == "critical"


def test_the_scheduler_resumes_a_stalled_job():
    member = consenting_member()
    request = submit(member, "access")
    DataRightsRequest.objects.filter(pk=request.pk).update(
        updated_at=timezone.now() - timedelta(hours=1)
    )
    assert datarights_run_due()["resumed"] == 1
    request.refresh_from_db()
    assert request.status == RequestStatus.COMPLETED


def test_audit_actor_types_are_recorded():
    member = consenting_member()
    request = process(submit(member, "access"))
    submitted, verified = audit_for(request)[:2]
    assert submitted.actor_type == ActorType.MEMBER and verified.actor_type == ActorType.MEMBER
    assert audit_for(request, "datarights.request.completed")[0].actor_type == ActorType.SYSTEM
    assert DAY_MS == 86_400_000
