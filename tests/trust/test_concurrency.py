"""Real concurrency: threads with their own database connections, released together by a
barrier, against the real services. Whatever the interleaving, nothing is lost, nothing
happens twice and every chain stays valid.

PostgreSQL is where this matters (row locks, advisory locks, READ COMMITTED); SQLite runs
the same tests cheaply (its IMMEDIATE transactions serialize writers on the busy timeout).
"""

import threading
from collections import Counter
from collections.abc import Callable

import pytest
from django.db import connection
from django_tasks_db.models import DBTaskResult

from consent.models import ConsentEvent
from consent.selectors import consent_active, consent_ledger_verify
from datarights.enums import RequestStatus, TrailEvent
from datarights.models import DataRightsRequest
from datarights.processing import datarights_process
from datarights.services import datarights_cancel, datarights_verify_session
from hierarchy.consolidation import stm_consolidate
from hierarchy.models import ShortTermMemory
from iris_site.audit.events import Actor
from iris_site.audit.selectors import audit_chain_verify
from iris_site.errors import Conflict
from iris_site.models import AuditEvent
from memory.access.capabilities import capabilities_for
from memory.enums import Lifecycle
from memory.forgetting.services import memory_tombstone
from memory.models import MemoryEntry, MemoryRevision
from memory.pauses import memory_pause
from memory.recall.service import recall_request_build, recall_run
from memory.services import memory_edit
from tests.consent.factories import record
from tests.datarights.factories import submit, trail_events
from tests.hierarchy.stm_factories import member_with, service_actor, write
from tests.memory.factories import consenting_member, remember

THREADS = 6
race_db = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _export_dir(settings, tmp_path):
    settings.IRIS_DSAR_EXPORT_DIR = str(tmp_path / "exports")


def race(calls: list[Callable[[], object]]) -> tuple[list[object], list[BaseException]]:
    """Run every call in its own thread and connection, all released at the same moment."""
    start = threading.Barrier(len(calls))
    results: list[object] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def run(call: Callable[[], object]) -> None:
        try:
            start.wait(timeout=30)
            outcome = call()
            with lock:
                results.append(outcome)
        except BaseException as exc:  # surfaced in the main thread
            with lock:
                errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(call,)) for call in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads), "a racer hung"
    return results, errors


def only_conflicts(errors: list[BaseException]) -> Counter:
    """Every error is a clean domain refusal (409); anything else fails the test."""
    unexpected = [e for e in errors if not isinstance(e, Conflict)]
    assert unexpected == [], unexpected
    return Counter(e.code for e in errors)


# --- memory ---------------------------------------------------------------------------------


@race_db
def test_parallel_edits_of_one_entry_never_lose_a_revision():
    member = consenting_member()
    entry = remember(member, body="first words").entry
    actor = Actor.of(member)
    bodies = [f"restated {i}" for i in range(THREADS)]

    def edit(body: str):
        return lambda: memory_edit(
            entry=MemoryEntry.objects.get(pk=entry.pk), actor=actor, body=body
        )

    results, errors = race([edit(body) for body in bodies])

    assert errors == []
    assert len(results) == THREADS
    revisions = list(MemoryRevision.objects.filter(entry_id=entry.pk).order_by("number"))
    assert [r.number for r in revisions] == list(range(1, THREADS + 2))
    # each links to the one before it: a single line, no fork
    assert [r.previous_revision_id for r in revisions] == [None] + [r.pk for r in revisions[:-1]]
    assert sorted(r.content["body"] for r in revisions[1:]) == sorted(bodies)
    entry.refresh_from_db()
    assert entry.revision_id == revisions[-1].pk
    assert entry.revision_count == THREADS + 1
    assert entry.body == revisions[-1].content["body"]
    edited = AuditEvent.objects.filter(
        action="memory.entry.edited", payload__entry_id=str(entry.pk)
    )
    assert edited.count() == THREADS
    assert audit_chain_verify().valid


@race_db
def test_recalls_racing_edits_and_forgets_of_what_they_return_never_deadlock():
    """A recall holds the member's audit chain while it counts the entries it returned; an
    edit, a forget or a pause locks an entry and then records it in that chain. Every
    writer takes the chain before any row (`member_lock`, `entry_lock`), so each waits
    for the other instead of PostgreSQL aborting one as a deadlock."""
    member = consenting_member()
    actor = Actor.of(member)

    def look():
        return recall_run(request=_recall_request(member), actor=Actor.system())

    for round_ in range(3):
        entries = [
            remember(
                member, subject=f"tea {round_}.{n}", body=f"I drink green tea {round_}.{n}"
            ).entry
            for n in range(4)
        ]
        calls = [
            look,
            look,
            look,
            lambda e=entries[0]: memory_edit(
                entry=MemoryEntry.objects.get(pk=e.pk), actor=actor, body="I drink black tea"
            ),
            lambda e=entries[1]: memory_tombstone(
                entry=MemoryEntry.objects.get(pk=e.pk), actor=actor
            ),
            lambda e=entries[2]: memory_tombstone(
                entry=MemoryEntry.objects.get(pk=e.pk), actor=actor
            ),
            lambda e=entries[3]: memory_pause(entry=MemoryEntry.objects.get(pk=e.pk), actor=actor),
        ]
        results, errors = race(calls)
        assert errors == [] and len(results) == len(calls)
    assert audit_chain_verify().valid


def _recall_request(member):
    return recall_request_build(
        member_id=member.pk,
        capabilities=capabilities_for("assistant"),
        surface="assistant",
        scope={"kind": "profile"},
        query="green tea",
    )


@race_db
def test_parallel_remembers_of_one_fact_leave_one_active_entry():
    """Same conflict key from several surfaces at once: the ladder runs one write at a
    time, so exactly one entry stays active and the others are superseded, each with its
    conflict on the chain."""
    member = consenting_member()
    actor = Actor.of(member)
    calls = [
        (lambda i=i: remember(member, actor=actor, subject="coffee", body=f"coffee take {i}"))
        for i in range(THREADS)
    ]

    results, errors = race(calls)

    assert errors == []
    # the subject is sealed at rest: compare it opened
    entries = [e for e in MemoryEntry.objects.filter(member=member) if e.subject == "coffee"]
    # A write that waited behind a newer one loses to it (most-recent-wins) and stores
    # nothing; every other write supersedes its predecessor.
    created = sum(1 for r in results if r.created)
    assert len(entries) == created >= 1
    lifecycles = Counter(e.lifecycle for e in entries)
    assert lifecycles == +Counter({Lifecycle.ACTIVE: 1, Lifecycle.SUPERSEDED: created - 1})
    conflicts = AuditEvent.objects.filter(
        action="memory.conflict.resolved", target_member_id=member.pk
    )
    assert conflicts.count() == THREADS - 1
    assert audit_chain_verify().valid


# --- consent --------------------------------------------------------------------------------


@race_db
def test_parallel_consent_appends_keep_the_ledger_chain_valid():
    member = consenting_member("category:medical")
    medical = [remember(member, category="medical", body=f"takes pill {i}").entry for i in range(3)]
    base = ConsentEvent.objects.filter(member=member).count()
    types = ["cross_device", "sensitive_data", "multi-actor-sensitive", "category:financial"]

    def sequence(consent_type: str):
        def run():
            for kind in ("grant", "withdrawal", "grant"):
                record(member, consent_type, kind)

        return run

    # ...and one withdrawal that cascades into memory while the others append
    withdraw = lambda: record(member, "category:medical", "withdrawal")  # noqa: E731
    calls = [sequence(t) for t in types] + [withdraw]
    _, errors = race(calls)

    assert errors == []
    sequences = list(
        ConsentEvent.objects.filter(member=member)
        .order_by("sequence")
        .values_list("sequence", flat=True)
    )
    assert sequences == list(range(1, base + 3 * len(types) + 2))
    assert consent_ledger_verify(member_id=member.pk) is None
    active = consent_active(member_id=member.pk).types
    assert set(types) <= active and "category:medical" not in active
    assert set(
        MemoryEntry.objects.filter(pk__in=[e.pk for e in medical]).values_list(
            "lifecycle", flat=True
        )
    ) == {Lifecycle.TOMBSTONED}
    assert audit_chain_verify().valid


# --- data rights ----------------------------------------------------------------------------


def _jobs_for(request) -> int:
    return DBTaskResult.objects.filter(
        task_path="datarights.tasks.process_data_rights_request",
        args_kwargs__args=[str(request.pk)],
    ).count()


@race_db
def test_parallel_verifications_verify_once_and_enqueue_one_job():
    member = consenting_member()
    request = submit(member, "export", session=False)
    actor = Actor.of(member)

    def verify():
        return datarights_verify_session(
            request=DataRightsRequest.objects.get(pk=request.pk), actor=actor
        )

    results, errors = race([verify] * THREADS)

    assert len(results) == 1
    assert sum(only_conflicts(errors).values()) == THREADS - 1
    request.refresh_from_db()
    assert request.status == RequestStatus.VERIFIED
    assert trail_events(request).count(RequestStatus.VERIFIED) == 1
    assert _jobs_for(request) == 1


@race_db
def test_parallel_cancellations_cancel_once():
    member = consenting_member()
    request = submit(member, "export", session=False)
    actor = Actor.of(member)

    def cancel():
        return datarights_cancel(request=DataRightsRequest.objects.get(pk=request.pk), actor=actor)

    results, errors = race([cancel] * THREADS)

    assert len(results) == 1
    assert sum(only_conflicts(errors).values()) == THREADS - 1
    request.refresh_from_db()
    assert request.status == RequestStatus.CANCELLED
    assert trail_events(request).count(RequestStatus.CANCELLED) == 1


@race_db
def test_a_cancel_racing_a_verification_leaves_one_consistent_outcome():
    member = consenting_member()
    request = submit(member, "export", session=False)
    actor = Actor.of(member)

    def fresh():
        return DataRightsRequest.objects.get(pk=request.pk)

    calls = [lambda: datarights_verify_session(request=fresh(), actor=actor)] * 3 + [
        lambda: datarights_cancel(request=fresh(), actor=actor)
    ] * 3
    _, errors = race(calls)

    only_conflicts(errors)
    request.refresh_from_db()
    trail = trail_events(request)
    assert trail.count(RequestStatus.VERIFIED) <= 1
    assert trail.count(RequestStatus.CANCELLED) <= 1
    if request.status == RequestStatus.VERIFIED:
        assert _jobs_for(request) == 1 and RequestStatus.CANCELLED not in trail
    else:
        # cancelled: either before verification (no job) or after it (the job, when it
        # runs, finds the request no longer verified and does nothing)
        assert request.status == RequestStatus.CANCELLED
        assert datarights_process(request_id=request.pk) == RequestStatus.CANCELLED
        assert RequestStatus.IN_PROGRESS not in trail_events(request)


@race_db
@pytest.mark.parametrize("kind", ["export", "delete", "access"])
def test_parallel_runs_of_one_job_process_it_exactly_once(kind, settings):
    member = consenting_member()
    for i in range(5):
        remember(member, body=f"a fact worth keeping number {i}", subject=f"fact-{i}")
    request = submit(member, kind)
    assert request.status == RequestStatus.VERIFIED

    results, errors = race(
        [lambda: datarights_process(request_id=request.pk) for _ in range(THREADS)]
    )

    assert errors == []
    assert set(results) == {RequestStatus.COMPLETED}
    request.refresh_from_db()
    assert request.status == RequestStatus.COMPLETED
    trail = trail_events(request)
    assert trail.count(RequestStatus.IN_PROGRESS) == 1
    assert trail.count(RequestStatus.COMPLETED) == 1
    steps = [e.detail["step"] for e in request.trail.filter(event=TrailEvent.STEP_COMPLETED)]
    assert len(steps) == len(set(steps)), steps  # no step ran twice
    assert request.progress["done"] == list(dict.fromkeys(request.progress["done"]))
    if kind == "export":
        from datarights.export import member_dir

        files = [p for p in member_dir(member.pk).iterdir() if p.is_file()]
        assert len(files) == 1
    if kind == "delete":
        assert MemoryEntry.objects.filter(member=member, scope_kind="profile").count() == 0
    assert audit_chain_verify().valid


@race_db
def test_parallel_submissions_open_one_request():
    member = consenting_member()
    results, errors = race([lambda: submit(member, "export") for _ in range(THREADS)])

    assert errors == []
    request = DataRightsRequest.objects.get(member=member)
    # every submission answered with the one request made
    assert {made.pk for made in results} == {request.pk} and len(results) == THREADS
    assert _jobs_for(request) == 1


# --- hierarchy ------------------------------------------------------------------------------


@race_db
def test_parallel_consolidations_of_one_row_create_one_long_term_entry():
    member = member_with()
    row = write(member, content="prefers morning walks")
    actor = service_actor()

    results, errors = race(
        [
            lambda: stm_consolidate(stm_id=row.pk, actor=actor, consumer="assistant")
            for _ in range(THREADS)
        ]
    )

    assert len(results) == 1
    assert only_conflicts(errors) == {"already-consolidated": THREADS - 1}
    [entry] = MemoryEntry.objects.filter(member=member)
    row = ShortTermMemory.objects.get(pk=row.pk)
    assert row.consolidated_to == entry.pk
    assert (
        AuditEvent.objects.filter(
            action="hierarchy.stm.consolidated", payload__stm_id=str(row.pk)
        ).count()
        == 1
    )
    assert (
        AuditEvent.objects.filter(
            action="memory.entry.created", payload__entry_id=str(entry.pk)
        ).count()
        == 1
    )
    assert audit_chain_verify().valid
