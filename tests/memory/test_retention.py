"""The retention sweep, compaction and the jobs that run them. Time is pinned by `now`:
data is written at the real time and the sweep runs at a later `now`."""

import uuid
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from iris_site.audit.events import Actor
from iris_site.audit.sealing import resolver_for
from iris_site.models import AuditEvent
from memory.contracts import MemoryWriteRequest
from memory.entities.services import person_forget
from memory.forgetting.notebooks import memory_forget_notebook
from memory.forgetting.services import memory_clear_request
from memory.models import ConversationTurn, MemoryEntry, MemoryRevision
from memory.pauses import memory_pause
from memory.services import memory_off_the_record_set, memory_remember
from memory.sweeps.compaction import conversation_turns_compact, extractive_summarizer
from memory.sweeps.retention import retention_sweep
from memory.tasks import purge_cleared_memory, sweep_memory_retention
from memory.turns import conversation_turn_append
from tests.consent.factories import record
from tests.iris_site.factories import MemberFactory, TenantFactory
from tests.memory.factories import writer_for

DAY = timedelta(days=1)
ASSISTANT = Actor.system("test-surface")


# --- helpers ----------------------------------------------------------------------------------


def _member(*extra_consents, tenants=()):
    member = MemberFactory(tenants=list(tenants))
    for consent_type in ("data_processing", "data_storage", *extra_consents):
        record(member, consent_type)
    return member


def _remember(
    member,
    *,
    body,
    subject,
    category="preference",
    scope=None,
    origin="user-stated",
    now=None,
    **more,
):
    write = MemoryWriteRequest.model_validate(
        {
            "scope": scope or {"kind": "profile"},
            "category": category,
            "subject": subject,
            "body": body,
            "origin": origin,
            **more,
        },
        context={"user_id": member.pk},
    )
    return memory_remember(
        member=member, write=write, actor=writer_for(member, origin), now=now
    ).entry


def _turn(member, text, *, speaker="member", session_id="s-1"):
    return conversation_turn_append(
        member=member,
        session_id=session_id,
        speaker=speaker,
        text=text,
        consumer="assistant",
        actor=ASSISTANT,
    )


def _state():
    """Everything the sweep may change, for before/after comparisons."""
    return (
        sorted(
            (str(e.pk), e.lifecycle, e.revision_count)
            for e in MemoryEntry.objects.only("pk", "lifecycle", "revision_count")
        ),
        sorted(str(pk) for pk in ConversationTurn.objects.values_list("pk", flat=True)),
        MemoryRevision.objects.count(),
        AuditEvent.objects.count(),
    )


def _events(action):
    return list(AuditEvent.objects.filter(action=action).order_by("sequence"))


# --- the default summarizer (pure) ------------------------------------------------------------


def test_the_extractive_summary_keeps_the_most_frequent_sentences_in_their_order():
    texts = [
        "I walk my dog every morning. The weather was grey.",
        "My dog loves the morning walk in the park. Lunch was fine.",
        "The park near home is where I walk the dog.",
    ]
    summary = extractive_summarizer(texts, max_sentences=2)
    # mean term frequency: 2.25 (walk 3, dog 3, morning 2, every 1), 2.2, 2.0, 1.0, 1.0
    assert summary == "I walk my dog every morning. My dog loves the morning walk in the park."
    # deterministic: the same input gives the same output
    assert extractive_summarizer(texts, max_sentences=2) == summary


def test_the_extractive_summary_drops_repeats_and_empty_talk_and_respects_the_cap():
    assert extractive_summarizer(["It was so.", "And I am!", "  "]) == ""
    assert extractive_summarizer(["I like tea.", "I like tea."]) == "I like tea."
    long = " ".join(f"word{i}" for i in range(2000))
    clipped = extractive_summarizer([long])
    assert len(clipped) <= 4000 and clipped.endswith("…")
    many = [f"Sentence number {i} mentions gardening tomatoes." for i in range(300)]
    assert len(extractive_summarizer(many, max_sentences=300)) <= 4000


# --- conversation turn compaction -------------------------------------------------------------


@pytest.mark.django_db
def test_expired_turns_become_one_summary_with_provenance_and_are_purged():
    # given
    member = _member()
    turns = [
        _turn(member, "I am planning a trip to Lisbon in May."),
        _turn(member, "Which neighbourhood should I stay in?", speaker="assistant"),
        _turn(member, "Somewhere quiet in Lisbon, near a tram line."),
    ]
    now = timezone.now() + 31 * DAY
    # when
    result = conversation_turns_compact(member_id=member.pk, session_id="s-1", now=now)
    # then
    summary = result.summary
    assert result.outcome == "summarized" and result.retired_count == 3
    assert summary.origin == "summarized-from-session" and summary.category == "other"
    assert summary.scope_kind == "session" and summary.session_id == "s-1"
    assert summary.lifecycle == "active" and summary.created_at == now
    assert [(link["kind"], link["ref"]) for link in summary.provenance_chain] == [
        ("session-turn", str(t.pk)) for t in turns
    ]
    assert "Lisbon" in summary.body and "neighbourhood" not in summary.body  # member turns only
    assert not ConversationTurn.objects.filter(member=member).exists()
    [event] = _events("memory.turns.compacted")
    assert event.target_member_id == member.pk and event.actor_role == "retention"
    assert event.payload == {
        "summary_entry_id": str(summary.pk),
        "turn_count": 3,
        "purged_count": 3,
        "outcome": "summarized",
    }
    assert _events("memory.entry.created")[-1].payload["entry_id"] == str(summary.pk)


@pytest.mark.django_db
def test_turns_within_the_raw_retention_are_left_alone():
    member = _member()
    _turn(member, "I started learning the cello.")
    result = conversation_turns_compact(
        member_id=member.pk, session_id="s-1", now=timezone.now() + 29 * DAY
    )
    assert result.outcome == "nothing-expired"
    assert ConversationTurn.objects.filter(member=member).count() == 1
    assert not _events("memory.turns.compacted")


@pytest.mark.django_db
def test_an_off_the_record_session_is_never_copied_but_its_turns_still_expire():
    # given
    member = _member()
    _turn(member, "Here is something I told you before going off the record.")
    memory_off_the_record_set(member=member, active=True, actor=Actor.of(member), session_id="s-1")
    # when
    result = conversation_turns_compact(
        member_id=member.pk, session_id="s-1", now=timezone.now() + 31 * DAY
    )
    # then
    assert result.summary is None and result.outcome == "off-the-record"
    assert not MemoryEntry.objects.filter(member=member).exists()
    assert not ConversationTurn.objects.filter(member=member).exists()
    [event] = _events("memory.turns.compacted")
    assert event.payload["outcome"] == "off-the-record"
    assert event.payload["summary_entry_id"] is None


@pytest.mark.django_db
def test_without_storage_consent_no_summary_is_written_and_the_turns_go():
    member = MemberFactory()
    record(member, "data_processing")
    _turn(member, "I moved to a new flat last week.")
    result = conversation_turns_compact(
        member_id=member.pk, session_id="s-1", now=timezone.now() + 31 * DAY
    )
    assert result.summary is None and result.outcome == "scope-suppressed"
    assert not ConversationTurn.objects.filter(member=member).exists()
    assert _events("memory.turns.compacted")[0].payload["outcome"] == "scope-suppressed"


@pytest.mark.django_db
def test_the_summarizer_is_pluggable():
    member = _member()
    _turn(member, "First thing.")
    _turn(member, "Second thing.")
    seen = []

    def summarizer(texts):
        seen.append(list(texts))
        return f"{len(texts)} things were discussed."

    result = conversation_turns_compact(
        member_id=member.pk, session_id="s-1", now=timezone.now() + 31 * DAY, summarizer=summarizer
    )
    assert seen == [["First thing.", "Second thing."]]
    assert result.summary.body == "2 things were discussed."
    assert _events("memory.turns.compacted")[0].payload["outcome"] == "summarized"


# --- entry compaction and summary expiry --------------------------------------------------------


@pytest.mark.django_db
def test_raw_session_entries_past_retention_are_summarized_and_tombstoned():
    # given: two active session goals, a paused one, and a fresh one in another session
    member = _member()
    session = {"kind": "session", "session_id": "s-1"}
    run = _remember(
        member, category="goal", subject="run", body="I want to run 10k.", scope=session
    )
    swim = _remember(member, category="goal", subject="swim", body="I want to swim.", scope=session)
    paused = _remember(
        member, category="goal", subject="diary", body="I keep a private diary.", scope=session
    )
    memory_pause(entry=paused, actor=Actor.of(member))
    now = timezone.now() + 31 * DAY
    fresh = _remember(
        member,
        category="goal",
        subject="cook",
        body="I want to cook more.",
        scope={"kind": "session", "session_id": "s-2"},
        now=now - DAY,
    )
    # when
    report = retention_sweep(now=now)
    # then
    [summary] = MemoryEntry.objects.filter(member=member, origin="summarized-from-session")
    assert summary.category == "goal" and summary.session_id == "s-1"
    assert summary.body == "I want to run 10k. I want to swim."  # the paused text is not copied
    assert {(link["kind"], link["ref"]) for link in summary.provenance_chain} == {
        ("session-summary", str(run.pk)),
        ("session-summary", str(swim.pk)),
    }
    lifecycles = dict(MemoryEntry.objects.values_list("pk", "lifecycle"))
    assert [lifecycles[e.pk] for e in (run, swim, paused, fresh)] == [
        "tombstoned",
        "tombstoned",
        "tombstoned",
        "active",
    ]
    assert report.entry_groups_compacted == 1 and report.raw_entries_tombstoned == 3
    assert report.summaries_created == 1
    [event] = _events("memory.retention.compacted")
    assert event.payload == {
        "summary_entry_id": str(summary.pk),
        "scope_kind": "session",
        "category": "goal",
        "summarized_count": 2,
        "tombstoned_count": 3,
        "outcome": "summarized",
    }
    retired = _events("memory.entry.tombstoned")
    assert {e.payload["entry_id"] for e in retired} == {str(run.pk), str(swim.pk), str(paused.pk)}
    assert {e.actor_role for e in retired} == {"retention"}
    swept = _events("memory.retention.swept")[0].payload
    assert swept["raw_entries_tombstoned"] == 3 and swept["summaries_created"] == 1


@pytest.mark.django_db
def test_each_kind_uses_its_own_raw_retention():
    # scene keeps raw memory 14 days, pose 7, session 30
    member = _member("sensitive_data")
    scene = _remember(
        member,
        category="spatial",
        subject="nook",
        body="I like the reading nook.",
        scope={"kind": "scene", "session_id": "s-1", "scene_id": "nook", "room_id": "study"},
    )
    pose = _remember(
        member,
        category="preference",
        subject="seated",
        body="Keep my avatar seated.",
        scope={
            "kind": "pose",
            "session_id": "s-1",
            "scene_id": "nook",
            "pose_id": "seated",
            "avatar_id": "a-1",
        },
    )
    session = _remember(
        member,
        category="goal",
        subject="report",
        body="Finish the report.",
        scope={"kind": "session", "session_id": "s-1"},
    )
    retention_sweep(now=timezone.now() + 8 * DAY)
    assert dict(
        MemoryEntry.objects.filter(pk__in=[scene.pk, pose.pk, session.pk]).values_list(
            "pk", "lifecycle"
        )
    ) == {scene.pk: "active", pose.pk: "tombstoned", session.pk: "active"}
    retention_sweep(now=timezone.now() + 15 * DAY)
    summaries = MemoryEntry.objects.filter(origin="summarized-from-session")
    assert sorted(summaries.values_list("scope_kind", flat=True)) == ["pose", "scene"]
    assert summaries.get(scope_kind="scene").provenance_chain[0]["kind"] == "scene-event"
    assert summaries.get(scope_kind="pose").provenance_chain[0]["kind"] == "pose-sample"
    assert MemoryEntry.objects.get(pk=session.pk).lifecycle == "active"
    assert len(_events("memory.retention.compacted")) == 2


@pytest.mark.django_db
def test_a_summary_keeps_the_person_it_mentions_so_forgetting_them_reaches_it():
    member = _member()
    entry = _remember(
        member,
        category="family",
        subject="visit",
        body="Sam is visiting in June.",
        scope={"kind": "session", "session_id": "s-1"},
        multi_actor={"actor_name": "Sam", "relationship_note": "my sister"},
    )
    retention_sweep(now=timezone.now() + 31 * DAY)
    summary = MemoryEntry.objects.get(origin="summarized-from-session")
    assert summary.actor_handle == entry.actor_handle
    assert summary.relationship_note == "my sister"
    forgotten = person_forget(
        member=member, actor_handle=entry.actor_handle, actor=Actor.of(member)
    )
    assert summary.pk in forgotten
    assert _events("memory.actor.forgotten")[0].payload["tombstoned_count"] == 1


@pytest.mark.django_db
def test_summaries_past_the_summary_retention_are_tombstoned():
    # given: session summaries live 90 days, pose summaries 30
    member = _member("sensitive_data")
    base = timezone.now()
    session_summary = _remember(
        member,
        category="other",
        subject="recap",
        body="We planned the week.",
        scope={"kind": "session", "session_id": "s-1"},
        origin="summarized-from-session",
    )
    pose_summary = _remember(
        member,
        category="preference",
        subject="pose recap",
        body="Seated poses most of the time.",
        scope={
            "kind": "pose",
            "session_id": "s-1",
            "scene_id": "nook",
            "pose_id": "seated",
            "avatar_id": "a-1",
        },
        origin="summarized-from-session",
    )
    # when / then: day 31 retires the pose summary only
    report = retention_sweep(now=base + 31 * DAY)
    assert report.summaries_tombstoned == 1
    assert MemoryEntry.objects.get(pk=pose_summary.pk).lifecycle == "tombstoned"
    assert MemoryEntry.objects.get(pk=session_summary.pk).lifecycle == "active"
    # day 89: still within 90 days; day 91: gone
    assert retention_sweep(now=base + 89 * DAY).summaries_tombstoned == 0
    assert retention_sweep(now=base + 91 * DAY).summaries_tombstoned == 1
    assert MemoryEntry.objects.get(pk=session_summary.pk).lifecycle == "tombstoned"
    events = _events("memory.entry.tombstoned")
    assert [e.payload["entry_id"] for e in events] == [
        str(pose_summary.pk),
        str(session_summary.pk),
    ]
    assert {e.actor_role for e in events} == {"retention"}


# --- review and delete ---------------------------------------------------------------------------


@pytest.mark.django_db
def test_review_scopes_are_flagged_once_and_never_deleted():
    # given: operator-copilot (14 days), tenant (365), crisis (30), durable profile
    tenant = TenantFactory()
    member = _member(tenants=[tenant])
    copilot = _remember(
        member,
        category="other",
        subject="ticket",
        body="Asked about exports.",
        origin="operator-copilot",
        scope={"kind": "operator-copilot", "operator_id": str(uuid.uuid4())},
    )
    tenant_entry = _remember(
        member,
        category="work",
        subject="course",
        body="Finished module 3.",
        scope={"kind": "tenant", "tenant_id": str(tenant.pk)},
    )
    crisis = _remember(
        member,
        category="commitment",
        subject="call",
        body="I'll call my brother.",
        scope={"kind": "crisis"},
    )
    profile = _remember(member, subject="tea", body="I like green tea.")
    # when
    first = retention_sweep(now=timezone.now() + 31 * DAY)
    second = retention_sweep(now=timezone.now() + 31 * DAY)
    # then
    assert first.reviews_flagged == 2 and second.reviews_flagged == 0
    flagged = _events("memory.retention.review_due")
    assert {e.payload["entry_id"] for e in flagged} == {str(copilot.pk), str(crisis.pk)}
    copilot_event = next(e for e in flagged if e.payload["entry_id"] == str(copilot.pk))
    assert copilot_event.payload == {
        "entry_id": str(copilot.pk),
        "revision_id": str(copilot.revision_id),
        "scope_kind": "operator-copilot",
        "category": "other",
        "retention_days": 14,
    }
    assert copilot_event.target_member_id == member.pk
    assert set(MemoryEntry.objects.values_list("lifecycle", flat=True)) == {"active"}
    # a year on, the tenant memory is due as well; the durable profile never is
    retention_sweep(now=timezone.now() + 366 * DAY)
    flagged = {e.payload["entry_id"] for e in _events("memory.retention.review_due")}
    assert flagged == {str(copilot.pk), str(crisis.pk), str(tenant_entry.pk)}
    assert str(profile.pk) not in flagged


@pytest.mark.django_db
def test_the_sweep_leaves_notebook_memory_to_the_notebook_hook():
    # given
    member = _member()
    notebook = {"kind": "notebook", "notebook_id": "nb-1"}
    entry = _remember(member, category="goal", subject="exam", body="Exam in May.", scope=notebook)
    other = _remember(
        member,
        category="goal",
        subject="thesis",
        body="Thesis due.",
        scope={"kind": "notebook", "notebook_id": "nb-2"},
    )
    # when: years pass, the sweep does nothing to notebook memory
    report = retention_sweep(now=timezone.now() + 1000 * DAY)
    assert MemoryEntry.objects.get(pk=entry.pk).lifecycle == "active"
    assert not report.changed and not _events("memory.retention.swept")
    summary = _remember(
        member,
        category="goal",
        subject="recap",
        body="Exam prep recap.",
        origin="summarized-from-session",
        scope={"kind": "session", "session_id": "s-1"},
        provenance=[
            {"kind": "notebook-attachment", "ref": str(entry.pk), "captured_at": timezone.now()}
        ],
    )
    # when: the notebook is deleted
    forgotten = memory_forget_notebook(member=member, notebook_id="nb-1", actor=Actor.of(member))
    # then
    assert set(forgotten) == {entry.pk, summary.pk}
    assert MemoryEntry.objects.get(pk=other.pk).lifecycle == "active"
    [event] = _events("memory.notebook.forgotten")
    assert event.target_member_id == member.pk
    assert event.payload == {
        "tombstoned_count": 2,
        "entry_ids": sorted([str(entry.pk), str(summary.pk)]),
    }


# --- consent reconciliation ----------------------------------------------------------------------


@pytest.mark.django_db
def test_the_sweep_catches_a_consent_cascade_that_never_ran():
    # given: the withdrawal committed but its on-commit cascade was lost
    member = _member("category:medical")
    entry = _remember(member, category="medical", subject="pills", body="I take iron pills.")
    record(member, "category:medical", "withdrawal")  # on_commit never runs in this test
    assert MemoryEntry.objects.get(pk=entry.pk).lifecycle == "active"
    # when
    report = retention_sweep(now=timezone.now())
    # then
    assert report.consent_cascaded == 1
    assert MemoryEntry.objects.get(pk=entry.pk).lifecycle == "tombstoned"
    sealed = _events("memory.category.forgotten")[0].payload["category"]
    assert resolver_for(member.pk)[sealed] == "medical"  # sealed in the chain (issue 42)


# --- idempotency --------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_sweep_is_idempotent():
    # given: one of everything the sweep acts on
    member = _member()
    _turn(member, "I adopted a cat called Miso.")
    _remember(
        member,
        category="goal",
        subject="garden",
        body="Plant tomatoes.",
        scope={"kind": "session", "session_id": "s-9"},
    )
    _remember(
        member,
        category="other",
        subject="ticket",
        body="Asked about exports.",
        origin="operator-copilot",
        scope={"kind": "operator-copilot", "operator_id": str(uuid.uuid4())},
    )
    now = timezone.now() + 31 * DAY
    # when
    first = retention_sweep(now=now)
    after_first = _state()
    second = retention_sweep(now=now)
    # then
    assert first.changed and not second.changed
    assert _state() == after_first
    assert len(_events("memory.retention.swept")) == 1
    assert first.as_dict() == {
        "turn_sessions_compacted": 1,
        "turns_purged": 1,
        "entry_groups_compacted": 1,
        "raw_entries_tombstoned": 1,
        "summaries_created": 2,
        "summaries_tombstoned": 0,
        "reviews_flagged": 1,
        "consent_cascaded": 0,
        "notebooks_erased": 0,
        "change_events_expired": 0,
        "recipients_told_late": 0,
    }


# --- jobs and commands --------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_sweep_command_runs_the_sweep_as_of_a_given_time():
    member = _member()
    _turn(member, "I repaint the kitchen next month.")
    out = StringIO()
    when = (timezone.now() + 31 * DAY).isoformat()
    call_command("memory_retention_sweep", "--now", when, stdout=out)
    assert "turns purged: 1" in out.getvalue()
    assert not ConversationTurn.objects.exists()
    assert _events("memory.retention.swept")[0].payload["turns_purged"] == 1


@pytest.mark.django_db
def test_the_purge_command_purges_full_clears_past_their_grace_window():
    member = _member()
    entry = _remember(member, subject="tea", body="I like green tea.")
    memory_clear_request(member=member, actor=Actor.of(member), grace=timedelta(0))
    out = StringIO()
    call_command("memory_purge_due", stdout=out)
    assert "1 cleared and 0 forgotten entries purged" in out.getvalue()
    assert not MemoryEntry.objects.filter(pk=entry.pk).exists()
    assert _events("memory.entries.purged")[0].payload["entry_ids"] == [str(entry.pk)]


@pytest.mark.django_db
def test_the_scheduled_tasks_wrap_the_plain_functions():
    member = _member()
    _remember(member, subject="tea", body="I like green tea.")
    memory_clear_request(member=member, actor=Actor.of(member), grace=timedelta(0))
    assert purge_cleared_memory.call() == 1
    assert sweep_memory_retention.call() == {
        "turn_sessions_compacted": 0,
        "turns_purged": 0,
        "entry_groups_compacted": 0,
        "raw_entries_tombstoned": 0,
        "summaries_created": 0,
        "summaries_tombstoned": 0,
        "reviews_flagged": 0,
        "consent_cascaded": 0,
        "notebooks_erased": 0,
        "change_events_expired": 0,
        "recipients_told_late": 0,
    }
