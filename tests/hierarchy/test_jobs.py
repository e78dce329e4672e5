"""Background work: the hierarchy's jobs are scheduled beside the earlier apps' jobs, run
by hand through management commands, and a job enqueued inside a rolled-back
transaction never runs."""

import io
from datetime import UTC, datetime, timedelta

import pytest
from crontask import scheduler
from django.core.management import call_command
from django.db import transaction
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

import consent.tasks  # noqa: F401 - the scheduler loads every app's tasks module
import memory.tasks  # noqa: F401
from hierarchy import tasks
from hierarchy.models import ShortTermMemory
from tests.hierarchy.stm_factories import events, member_with, write

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def test_every_job_is_registered_with_the_scheduler():

    names = {job.name for job in scheduler.get_jobs()}
    assert {
        "expire_short_term_memory",
        "consolidate_short_term_memory",
        "queue_stale_inferences",
        "sweep_memory_retention",
        "purge_cleared_memory",
        "expire_lapsed_consents",
    } <= names


@pytest.mark.django_db(transaction=True)
def test_a_job_enqueued_in_a_rolled_back_transaction_never_runs():
    # given: an expired row the job would delete
    member = member_with()
    row = write(member, now=timezone.now() - timedelta(hours=1))
    # when: enqueued, then the transaction rolls back
    with pytest.raises(RuntimeError), transaction.atomic():
        tasks.expire_short_term_memory.enqueue()
        assert DBTaskResult.objects.count() == 1
        raise RuntimeError("rolled back")
    call_command("db_worker", "--batch", "--no-startup-delay", stdout=io.StringIO())
    # then: no task row, nothing ran
    assert DBTaskResult.objects.count() == 0
    assert ShortTermMemory.objects.filter(pk=row.pk).exists()
    assert not events("hierarchy.stm.deleted")
    # and a committed enqueue runs
    with transaction.atomic():
        tasks.expire_short_term_memory.enqueue()
    call_command("db_worker", "--batch", "--no-startup-delay", stdout=io.StringIO())
    assert not ShortTermMemory.objects.filter(pk=row.pk).exists()
    assert events("hierarchy.stm.deleted", stm_id=str(row.pk))


@pytest.mark.django_db
def test_the_task_wrappers_call_the_plain_functions():
    member = member_with()
    write(member, now=timezone.now() - timedelta(hours=1))
    assert tasks.expire_short_term_memory.call() == {"deleted": 1, "anonymized": 0}
    assert tasks.consolidate_short_term_memory.call()["scanned"] == 0
    assert "evaluated" in tasks.queue_stale_inferences.call()


@pytest.mark.django_db
def test_each_job_runs_by_hand():
    # given
    member = member_with()
    write(member, scope_kind="agent_run", now=NOW)
    out = io.StringIO()
    # when
    call_command("stm_consolidate_due", "--now", "2026-11-30T12:00:00Z", stdout=out)
    call_command("stm_expire", "--now", "2026-11-30T13:00:00Z", stdout=out)
    call_command("freshness_confidence", stdout=out)
    # then
    text = out.getvalue()
    assert "dropped: 1" in text and "deleted: 1" in text and "Freshness job done" in text
    assert events("hierarchy.stm.expired") and events("hierarchy.stm.deleted")
    assert events("hierarchy.freshness_confidence.ticked")
