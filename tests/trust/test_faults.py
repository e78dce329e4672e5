"""Fault injection: a `DatabaseError` in the middle of every multi-step write leaves no
partial state (no revision without its head, no audit event without its change, no
orphaned task row), and through HTTP it is a 503 with the error envelope after which a
retry succeeds exactly once.

Faults are raised by the database layer itself (`connection.execute_wrapper` failing
the Nth statement that matches), so every step before the fault really ran.
"""

import contextlib
import re
from datetime import timedelta

import pytest
from django.db import DatabaseError, OperationalError, connection
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from consent.models import ConsentEvent
from continuity.contracts import token_parse
from continuity.models import ContinuationToken
from continuity.services import continuation_token_write
from datarights.enums import RequestStatus
from datarights.models import DataRightsRequest, DataRightsTrailEntry
from hierarchy.consolidation import stm_consolidate
from hierarchy.models import ShortTermMemory
from inspection.enums import InspectionState
from inspection.models import InspectionEvent, InspectionRequest
from inspection.services import inspection_transition
from iris_site.audit.events import Actor
from iris_site.audit.selectors import audit_chain_verify
from iris_site.models import AuditEvent, IdempotencyRecord
from memory.enums import Lifecycle
from memory.forgetting.services import memory_tombstone
from memory.models import MemoryEntry, MemoryRevision
from memory.services import memory_edit
from tests.conftest import bearer_client
from tests.consent.factories import record
from tests.continuity.factories import token_body
from tests.datarights.factories import HARD_DELETE, process, submit
from tests.hierarchy.stm_factories import member_with, service_actor, write
from tests.inspection.factories import open_request
from tests.iris_site.factories import OperatorFactory
from tests.memory.factories import consenting_member, remember

# The audit append: an insert on SQLite, one function call on PostgreSQL (iris_site 0007).
AUDIT_INSERT = r'INSERT INTO "hierarchy_auditevent"|iris_audit_append\('
TASK_INSERT = r'INSERT INTO "django_tasks_database_dbtaskresult"'
FULL_DISK = 'could not extend file "base/16384/2619": No space left on device'
TIMEOUT = "canceling statement due to statement timeout"


@pytest.fixture(autouse=True)
def _export_dir(settings, tmp_path):
    settings.IRIS_DSAR_EXPORT_DIR = str(tmp_path / "exports")


@contextlib.contextmanager
def fail_at(pattern: str, *, nth: int = 1, message: str = FULL_DISK):
    """Fail the `nth` statement whose SQL matches `pattern` with an OperationalError, as
    a full disk (or a statement timeout) would; records whether it fired."""
    seen = {"count": 0, "fired": False}
    compiled = re.compile(pattern)

    def wrapper(execute, sql, params, many, context):
        if compiled.search(sql):
            seen["count"] += 1
            if seen["count"] == nth:
                seen["fired"] = True
                raise OperationalError(message)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(wrapper):
        yield seen
    assert seen["fired"], f"no statement matched {pattern!r} {nth} time(s)"


def state() -> dict:
    """Everything a write could have left half-done."""
    return {
        "entries": sorted(
            MemoryEntry.objects.values_list(
                "pk", "lifecycle", "body", "revision_id", "revision_count", "updated_at"
            )
        ),
        "revisions": MemoryRevision.objects.count(),
        "audit": AuditEvent.objects.count(),
        "consent": ConsentEvent.objects.count(),
        "requests": sorted(
            DataRightsRequest.objects.values_list("pk", "status", "progress", "updated_at")
        ),
        "trail": DataRightsTrailEntry.objects.count(),
        "tasks": DBTaskResult.objects.count(),
        "stm": sorted(ShortTermMemory.objects.values_list("pk", "consolidated_to")),
        "inspections": sorted(InspectionRequest.objects.values_list("pk", "state")),
        "inspection_events": InspectionEvent.objects.count(),
        "tokens": ContinuationToken.objects.count(),
        "idempotency": IdempotencyRecord.objects.count(),
    }


def bodies_of(member) -> list[str]:
    """The member's entry bodies, opened (the column is sealed: no lookup on its text)."""
    return [entry.body for entry in MemoryEntry.objects.filter(member=member)]


def assert_untouched(before: dict) -> None:
    assert state() == before
    assert audit_chain_verify().valid


db = pytest.mark.django_db


# --- memory ---------------------------------------------------------------------------------


@db
def test_remember_failing_at_its_audit_stores_nothing():
    member = consenting_member()
    before = state()
    with pytest.raises(DatabaseError), fail_at(AUDIT_INSERT):
        remember(member, body="never half-stored")
    assert_untouched(before)
    remember(member, body="never half-stored")  # the retry after the fault
    assert bodies_of(member).count("never half-stored") == 1


@db
def test_a_superseding_remember_failing_late_keeps_the_old_head():
    member = consenting_member()
    remember(member, subject="coffee", body="black")
    before = state()
    # the new entry and the superseded revision are written; the conflict audit fails
    with pytest.raises(DatabaseError), fail_at(AUDIT_INSERT, nth=3):
        remember(member, subject="coffee", body="with milk")
    assert_untouched(before)


@db
@pytest.mark.parametrize("message", [FULL_DISK, TIMEOUT])
def test_an_edit_failing_at_its_audit_leaves_no_revision_without_its_head(message):
    member = consenting_member()
    entry = remember(member, body="first").entry
    before = state()
    with pytest.raises(DatabaseError), fail_at(AUDIT_INSERT, message=message):
        memory_edit(entry=entry, actor=Actor.of(member), body="second")
    assert_untouched(before)


@db
def test_a_forget_failing_at_its_audit_is_not_half_forgotten():
    member = consenting_member()
    entry = remember(member, body="forget me").entry
    before = state()
    with pytest.raises(DatabaseError), fail_at(AUDIT_INSERT):
        memory_tombstone(entry=entry, actor=Actor.of(member))
    assert_untouched(before)
    entry.refresh_from_db()
    assert entry.lifecycle == Lifecycle.ACTIVE


# --- consent --------------------------------------------------------------------------------


@db
def test_a_consent_append_failing_at_its_audit_leaves_the_ledger_as_it_was():
    member = consenting_member("category:medical")
    remember(member, category="medical", body="takes a pill")
    before = state()
    with pytest.raises(DatabaseError), fail_at(AUDIT_INSERT):
        record(member, "category:medical", "withdrawal")
    assert_untouched(before)


@db
def test_a_failed_cascade_keeps_the_withdrawal_and_can_be_run_again(
    django_capture_on_commit_callbacks,
):
    """The cascade runs after the withdrawal commits, in its own transaction: a fault
    there rolls the cascade back whole (no half-forgotten category) and the withdrawal
    stands; running the cascade again (as the retention sweep's reconciliation does)
    finishes it."""
    from memory.forgetting.services import memory_consent_cascade

    member = consenting_member("category:medical")
    entries = [remember(member, category="medical", body=f"pill {i}").entry for i in range(3)]
    revisions = MemoryRevision.objects.count()
    with (
        pytest.raises(DatabaseError),
        # the withdrawal's own audit is the 1st; the cascade's 2nd entry fails
        fail_at(AUDIT_INSERT, nth=3),
        django_capture_on_commit_callbacks(execute=True),
    ):
        record(member, "category:medical", "withdrawal")
    assert ConsentEvent.objects.filter(member=member, kind="withdrawal").count() == 1
    assert MemoryRevision.objects.count() == revisions
    assert {e.lifecycle for e in MemoryEntry.objects.filter(pk__in=[e.pk for e in entries])} == {
        Lifecycle.ACTIVE
    }
    memory_consent_cascade(member_id=member.pk, consent_type="category:medical")
    assert {e.lifecycle for e in MemoryEntry.objects.filter(pk__in=[e.pk for e in entries])} == {
        Lifecycle.TOMBSTONED
    }
    assert audit_chain_verify().valid


# --- data rights ----------------------------------------------------------------------------


@db
@pytest.mark.parametrize("pattern", [TASK_INSERT, AUDIT_INSERT])
def test_a_submission_failing_at_its_job_or_audit_leaves_no_request_and_no_task(pattern):
    member = consenting_member()
    before = state()
    with pytest.raises(DatabaseError), fail_at(pattern, nth=1 if pattern == TASK_INSERT else 2):
        submit(member, "export")
    assert_untouched(before)
    submit(member, "export")
    assert DataRightsRequest.objects.filter(member=member).count() == 1
    assert DBTaskResult.objects.count() == 1


@db
def test_a_hard_delete_failing_mid_purge_loses_nothing_and_resumes():
    member = consenting_member()
    for i in range(3):
        remember(member, subject=f"fact-{i}", body=f"fact {i}")
    request = submit(member, "delete", HARD_DELETE)
    entries = MemoryEntry.objects.filter(member=member).count()
    revisions = MemoryRevision.objects.filter(member_id=member.pk).count()
    # the purge's own audit event fails after entries and revisions were deleted
    with pytest.raises(DatabaseError):
        _fail_purge_audit(request)
    request.refresh_from_db()
    assert request.status == RequestStatus.IN_PROGRESS
    assert "purge-entries" not in request.progress["done"]
    assert MemoryEntry.objects.filter(member=member).count() == entries
    assert MemoryRevision.objects.filter(member_id=member.pk).count() == revisions
    assert audit_chain_verify().valid
    # the resumed job completes it
    request = process(request)
    assert request.status == RequestStatus.COMPLETED
    assert not MemoryEntry.objects.filter(member=member).exists()


def _fail_purge_audit(request):
    from datarights import processing

    original = processing.memory_purge_entries

    def purge(**kwargs):
        with fail_at(AUDIT_INSERT):
            return original(**kwargs)

    processing.memory_purge_entries = purge
    try:
        process(request)
    finally:
        processing.memory_purge_entries = original


# --- hierarchy ------------------------------------------------------------------------------


@db
def test_a_consolidation_failing_at_its_last_audit_creates_no_long_term_entry():
    member = member_with()
    row = write(member, content="prefers morning walks")
    before = state()
    # memory.entry.created is written, hierarchy.stm.consolidated fails
    with pytest.raises(DatabaseError), fail_at(AUDIT_INSERT, nth=2):
        stm_consolidate(stm_id=row.pk, actor=service_actor(), consumer="assistant")
    assert_untouched(before)
    stm_consolidate(stm_id=row.pk, actor=service_actor(), consumer="assistant")
    assert MemoryEntry.objects.filter(member=member).count() == 1


# --- inspection -----------------------------------------------------------------------------


@db
def test_an_inspection_transition_failing_at_its_audit_stays_where_it_was():
    member = consenting_member()
    remember(member, body="something")
    operator = OperatorFactory(role="support")
    inspection = open_request(operator, member)
    before = state()
    with pytest.raises(DatabaseError), fail_at(AUDIT_INSERT):
        inspection_transition(
            inspection=inspection, to=InspectionState.ROUTINE_REVIEW, operator=operator
        )
    assert_untouched(before)
    inspection.refresh_from_db()
    assert inspection.state == InspectionState.REQUESTED


# --- continuity -----------------------------------------------------------------------------


@db
def test_a_token_write_failing_at_its_audit_writes_no_token_and_no_idempotency_record():
    member = consenting_member()
    contract = token_parse(token_body(member.pk))
    before = state()
    with pytest.raises(DatabaseError), fail_at(AUDIT_INSERT):
        continuation_token_write(
            member=member, contract=contract, consumer="tara", actor=Actor.system("test")
        )
    assert_untouched(before)
    continuation_token_write(
        member=member, contract=contract, consumer="tara", actor=Actor.system("test")
    )
    assert ContinuationToken.objects.filter(member=member).count() == 1


# --- through HTTP ---------------------------------------------------------------------------


@db
@pytest.mark.parametrize("message", [FULL_DISK, TIMEOUT])
def test_a_database_fault_over_http_is_a_503_envelope_and_a_retry_stores_once(message):
    member = consenting_member()
    client = bearer_client(member)
    body = {"scope": {"kind": "profile"}, "category": "preference", "body": "tea, no sugar"}
    before = state()
    with fail_at(AUDIT_INSERT, message=message):
        response = client.post("/api/v1/me/memories/", body, format="json")
    assert response.status_code == 503
    error = response.json()["error"]
    assert set(error) >= {"code", "message", "fields"}
    assert message not in error["message"]  # no database detail leaks
    assert_untouched(before)
    retry = client.post("/api/v1/me/memories/", body, format="json")
    assert retry.status_code == 201, retry.content
    assert bodies_of(member).count("tea, no sugar") == 1
    assert timezone.now() - timedelta(minutes=1) < MemoryEntry.objects.get(member=member).created_at
