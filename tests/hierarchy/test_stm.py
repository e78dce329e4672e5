"""The short-term tier: TTLs and caps, refresh, encryption at rest, consent, member
scope, reads through the read gate, expiry (hard delete vs anonymize in place), re-scope
and demote."""

import uuid
from datetime import UTC, datetime, timedelta

import pytest
import yaml
from django.db import connection
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hierarchy.models import ShortTermMemory
from hierarchy.stm import (
    stm_consent_cascade,
    stm_content,
    stm_demote,
    stm_expire_due,
    stm_gate,
    stm_item,
    stm_member_state,
    stm_purge_member,
    stm_read,
    stm_reader,
    stm_refresh,
    stm_rescope,
    stm_row_get,
    stm_rows_for_scope,
    stm_visible,
)
from hierarchy.stm_config import DEFAULT_CAPS_FILE, CapsConfigError, parse_caps, stm_caps
from hierarchy.transitions import IllegalTransition, Tier
from iris_site.audit.events import Actor
from iris_site.errors import Conflict, InvalidInput, NotPermitted, PolicyRefusal
from memory.access.capabilities import capabilities_for
from memory.access.gate import SENSITIVE_CONTEXTS, MemberState, ScopeKey, decide
from memory.enums import SENSITIVE_CATEGORIES, MemoryCategory, RecallContext
from memory.forgetting.dsar import memory_hold_place, memory_hold_release
from memory.forgetting.services import memory_clear_request, memory_tombstone
from memory.models import MemoryEntry
from memory.pauses import memory_pause, memory_resume
from memory.services import memory_off_the_record_set
from tests.consent.factories import record
from tests.hierarchy.stm_factories import (
    assert_no_content_in_chain,
    events,
    member_with,
    service_actor,
    write,
)
from tests.iris_site.factories import MemberFactory, OperatorFactory
from tests.memory.factories import memory_settings, remember

pytestmark = pytest.mark.django_db
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def read(member, *, consumer="assistant", context="general", scope_id="s-1", **options):
    """A short-term read as a service client of `consumer`, in `context`."""
    reader = stm_reader(
        member_id=member.pk,
        capabilities=capabilities_for(consumer),
        client_id=None,
        context=context,
    )
    return stm_read(
        member_id=member.pk, scope_id=scope_id, reader=reader, actor=service_actor(), **options
    )


# --- TTL defaults and caps -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("scope_kind", "seconds"),
    [("research_task", 3600), ("agent_run", 600), ("user_session", 900), ("admin_session", 1800)],
)
def test_a_new_row_lives_for_its_scope_kinds_default_ttl(scope_kind, seconds):
    # given
    member = member_with()
    # when
    row = write(member, scope_kind=scope_kind, now=NOW)
    # then
    assert row.ttl_seconds == seconds
    assert row.ttl_expires == NOW + timedelta(seconds=seconds)
    [event] = events("hierarchy.stm.written", stm_id=str(row.pk))
    assert event.payload["ttl_seconds"] == seconds
    assert event.payload["transition"] == "t2"
    assert event.target_member_id == member.pk


def test_the_shipped_caps_file_keeps_the_seed_defaults():
    caps = stm_caps()
    assert {k: c.ttl_seconds for k, c in caps.items()} == {
        "research_task": 3600,
        "agent_run": 600,
        "user_session": 900,
        "admin_session": 1800,
    }


@pytest.mark.parametrize(
    "mutate",
    [
        lambda d: d.pop("agent_run"),
        lambda d: d.update(unknown_kind=d["agent_run"]),
        lambda d: d["agent_run"].update(ttl_seconds=0),
        lambda d: d["agent_run"].update(extra=1),
        lambda d: d["agent_run"].update(max_ttl_seconds=1),
    ],
)
def test_a_broken_caps_file_is_refused(mutate):
    document = yaml.safe_load(DEFAULT_CAPS_FILE.read_text())
    mutate(document)
    with pytest.raises(CapsConfigError):
        parse_caps(document)


def test_a_writer_may_shorten_the_ttl_but_not_exceed_the_scope_maximum():
    member = member_with()
    assert write(member, ttl_seconds=60, now=NOW).ttl_expires == NOW + timedelta(seconds=60)
    with pytest.raises(InvalidInput) as caught:
        write(member, ttl_seconds=3601)
    assert "ttl_seconds" in caught.value.fields


def test_the_per_scope_row_cap_is_enforced(settings, tmp_path):
    # given: a caps file allowing two rows per user_session scope
    document = yaml.safe_load(DEFAULT_CAPS_FILE.read_text())
    document["user_session"]["max_rows_per_scope"] = 2
    path = tmp_path / "caps.yaml"
    path.write_text(yaml.safe_dump(document))
    settings.IRIS_STM_CAPS_FILE = str(path)
    member = member_with()
    write(member)
    write(member)
    # when / then
    with pytest.raises(PolicyRefusal) as caught:
        write(member)
    assert caught.value.code == "stm-scope-cap-reached"
    write(member, scope_id="s-2")  # another scope has its own cap
    assert stm_caps()["user_session"].max_rows_per_scope == 2


def test_content_longer_than_the_cap_is_refused():
    with pytest.raises(InvalidInput) as caught:
        write(member_with(), content="x" * 4001)
    assert "content" in caught.value.fields


# --- refresh (T3) ------------------------------------------------------------------------------


def test_refresh_extends_the_ttl_from_now_and_clears_the_expiry_warning():
    # given
    member = member_with()
    row = write(member, now=NOW)
    ShortTermMemory.objects.filter(pk=row.pk).update(warn_emitted_at=NOW)
    later = NOW + timedelta(minutes=10)
    # when
    refreshed = stm_refresh(row=row, actor=service_actor(), now=later)
    # then
    assert refreshed.ttl_expires == later + timedelta(seconds=900)
    assert refreshed.refreshed_at == later
    assert refreshed.warn_emitted_at is None
    [event] = events("hierarchy.stm.refreshed", stm_id=str(row.pk))
    assert event.payload["transition"] == "t3"
    assert event.payload["capped"] is False


def test_refresh_never_keeps_a_row_past_its_maximum_lifetime():
    member = member_with()
    row = write(member, scope_kind="agent_run", now=NOW)
    ceiling = NOW + timedelta(seconds=7200)
    late = ceiling - timedelta(seconds=60)
    ShortTermMemory.objects.filter(pk=row.pk).update(ttl_expires=late + timedelta(seconds=1))
    refreshed = stm_refresh(row=row, actor=service_actor(), now=late)
    assert refreshed.ttl_expires == ceiling
    assert events("hierarchy.stm.refreshed")[0].payload["capped"] is True


def test_an_expired_row_cannot_be_refreshed():
    row = write(member_with(), now=NOW)
    with pytest.raises(Conflict) as caught:
        stm_refresh(row=row, actor=service_actor(), now=NOW + timedelta(hours=1))
    assert caught.value.code == "stm-expired"


# --- encryption, consent, off the record -----------------------------------------------------


def test_sensitive_content_is_encrypted_at_rest_and_readable_in_member_scope():
    # given
    member = member_with("category:medical")
    # when
    row = write(member, category="medical", content="takes insulin at night")
    # then
    stored = ShortTermMemory.objects.get(pk=row.pk)
    assert stored.sensitive is True
    assert stored_column(row).startswith("iris1:")
    assert "insulin" not in stored_column(row)
    [view] = read(member, context="health").views
    assert view.content == "takes insulin at night"
    assert_no_content_in_chain("insulin")


def test_ordinary_content_is_sealed_too_and_reads_back():
    row = write(member_with(), content="likes tea")
    assert stored_column(row).startswith("iris1:")
    assert "tea" not in stored_column(row)
    assert ShortTermMemory.objects.get(pk=row.pk).content == "likes tea"


def test_a_legacy_fernet_row_still_reads_until_sealed():
    from iris_site.crypto import encrypt

    member = member_with("category:medical")
    row = write(member, category="medical", content="placeholder")
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {ShortTermMemory._meta.db_table} SET content = %s WHERE id = %s",
            [encrypt("takes insulin"), row.pk.hex if connection.vendor == "sqlite" else row.pk],
        )
    assert stm_content(ShortTermMemory.objects.get(pk=row.pk)) == "takes insulin"


def stored_column(row) -> str:
    """The content column as the database holds it (no field opens it)."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT content FROM {ShortTermMemory._meta.db_table} WHERE id = %s",
            [row.pk.hex if connection.vendor == "sqlite" else row.pk],
        )
        return cursor.fetchone()[0]


def test_a_sensitive_row_needs_the_category_consent():
    member = member_with()
    with pytest.raises(PolicyRefusal) as caught:
        write(member, category="medical", content="takes insulin")
    assert caught.value.code == "sensitive-category-without-consent"
    assert not ShortTermMemory.objects.exists()


def test_working_memory_needs_data_processing_consent():
    member = MemberFactory()
    with pytest.raises(PolicyRefusal) as caught:
        write(member)
    assert caught.value.code == "data-processing-consent-required"


def test_nothing_is_written_off_the_record():
    member = member_with()
    memory_off_the_record_set(member=member, active=True, actor=Actor.of(member))
    with pytest.raises(PolicyRefusal) as caught:
        write(member)
    assert caught.value.code == "paused"


def test_related_entries_must_be_the_members_own():
    member, other = member_with(), member_with()
    mine = remember(member).entry
    theirs = remember(other).entry
    row = write(member, related_entry_ids=[mine.pk])
    assert row.related_entry_ids == [str(mine.pk)]
    with pytest.raises(InvalidInput):
        write(member, related_entry_ids=[theirs.pk])


def test_writing_from_the_episodic_tier_is_refused():
    with pytest.raises(IllegalTransition) as caught:
        write(member_with(), origin_tier=Tier.EPISODIC)
    assert caught.value.rule == "episodic-to-writable"
    assert not ShortTermMemory.objects.exists()


# --- member scope -----------------------------------------------------------------------------


def test_non_admin_reads_require_the_member_scope():
    member = member_with()
    row = write(member)
    with pytest.raises(NotPermitted) as caught:
        stm_rows_for_scope(member_id=None, scope_id="s-1")
    assert caught.value.code == "member-scope-required"
    with pytest.raises(NotPermitted):
        stm_row_get(member_id=None, stm_id=row.pk)
    assert stm_row_get(member_id=member_with().pk, stm_id=row.pk) is None


def test_a_member_scoped_read_sees_only_that_members_live_rows_and_is_audited():
    member, other = member_with(), member_with()
    mine = write(member, now=NOW)
    write(other, now=NOW)
    write(member, scope_id="s-2", now=NOW)
    result = read(member, now=NOW)
    assert [v.row.pk for v in result.views] == [mine.pk]
    [event] = events("hierarchy.stm.read")
    assert event.payload["row_count"] == 1
    assert event.payload["stm_ids"] == [str(mine.pk)]
    assert event.payload["withheld_counts"] == {}
    assert read(member, now=NOW + timedelta(hours=1)).views == []


# --- reads through the read gate ----------------------------------------------------------------


def test_a_user_sessions_row_lives_in_that_session_other_working_memory_in_the_profile():
    member = member_with()
    session_row = write(member, scope_id="s-9")
    task_row = write(member, scope_kind="research_task", scope_id="t-1")
    assert stm_item(session_row).scope == ScopeKey(
        kind="session", user_id=str(member.pk), session_id="s-9"
    )
    assert stm_item(task_row).scope == ScopeKey(kind="profile", user_id=str(member.pk))
    assert stm_item(task_row).category == "preference"


def test_a_sensitive_row_is_read_only_in_a_context_where_it_may_surface():
    # given
    member = member_with("category:mental_health")
    sensitive = write(member, category="mental_health", content="anxious before exams")
    ordinary = write(member, content="likes tea")
    # when
    general = read(member)
    health = read(member, context="health")
    # then
    assert [v.row.pk for v in general.views] == [ordinary.pk]
    assert general.withheld == {"sensitive-category-outside-relevant-context": 1}
    assert [v.row.pk for v in health.views] == [sensitive.pk, ordinary.pk]
    assert health.withheld == {}
    first, second = events("hierarchy.stm.read")
    assert first.payload["stm_ids"] == [str(ordinary.pk)]
    assert first.payload["withheld_counts"] == {"sensitive-category-outside-relevant-context": 1}
    assert second.payload["withheld_counts"] == {}


def test_a_context_the_client_may_not_claim_is_refused_not_read_as_general():
    member = member_with("category:mental_health")
    write(member, category="mental_health", content="anxious before exams")
    with pytest.raises(NotPermitted) as caught:
        read(member, consumer="veritas", context="health")
    assert caught.value.code == "context-not-allowed"
    assert not events("hierarchy.stm.read")


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ("withdraw-processing", "scope-suppressed"),
        ("withdraw-category", "sensitive-category-without-consent"),
        ("off-the-record", "off-the-record"),
        ("off-the-record-session", "off-the-record"),
    ],
)
def test_the_members_state_withholds_rows_at_once(change, reason):
    # given (commit hooks do not run: the cascade has not ended the rows yet)
    member = member_with("category:medical")
    write(member, category="medical", content="takes insulin")
    # when
    if change == "withdraw-processing":
        record(member, "data_processing", kind="withdrawal")
    elif change == "withdraw-category":
        record(member, "category:medical", kind="withdrawal")
    elif change == "off-the-record":
        memory_off_the_record_set(member=member, active=True, actor=Actor.of(member))
    else:
        memory_off_the_record_set(
            member=member, active=True, actor=Actor.of(member), session_id="s-1"
        )
    result = read(member, context="health")
    # then
    assert result.views == []
    assert result.withheld == {reason: 1}


def test_a_full_clear_erases_working_memory_at_once_and_refuses_new_rows():
    # given
    member, bystander = member_with(), member_with()
    write(member)
    kept = write(bystander)
    # when
    memory_clear_request(member=member, actor=Actor.of(member))
    # then
    assert not ShortTermMemory.objects.filter(member=member).exists()
    assert ShortTermMemory.objects.filter(pk=kept.pk).exists()
    [event] = events("hierarchy.stm.purged")
    assert event.payload["reason"] == "full-clear" and event.payload["purged_count"] == 1
    with pytest.raises(Conflict) as refusal:
        write(member)
    assert refusal.value.code == "clear-pending"
    assert not ShortTermMemory.objects.filter(member=member).exists()


def test_another_sessions_off_the_record_leaves_this_one_readable():
    member = member_with()
    row = write(member)
    memory_off_the_record_set(member=member, active=True, actor=Actor.of(member), session_id="s-2")
    assert [v.row.pk for v in read(member).views] == [row.pk]


def _member_state(member_id: str, consents: frozenset[str]) -> MemberState:
    categories = frozenset(
        c.removeprefix("category:") for c in consents if c.startswith("category:")
    )
    return MemberState(member_id=member_id, consent_types=consents, categories=categories)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=st.lists(
        st.tuples(
            st.sampled_from(["user_session", "research_task", "agent_run"]),
            st.sampled_from(MemoryCategory.values),
        ),
        max_size=12,
    ),
    consumer=st.sampled_from(["assistant", "tara", "veritas", "shell", "studio"]),
    context=st.sampled_from(RecallContext.values),
    consents=st.sets(
        st.sampled_from(
            ["data_processing", "category:medical", "category:mental_health", "category:safety"]
        )
    ),
)
def test_the_gate_returns_only_rows_decide_lets_through_and_counts_the_rest(
    rows, consumer, context, consents
):
    """No database: unsaved rows through `stm_gate`, against the pure decision."""
    member_id = "3f0c1b9e-6a7d-4e2a-9b1c-0d8e7f6a5b4c"
    built = [
        ShortTermMemory(
            member_id=member_id,
            scope_kind=kind,
            scope_id="s-1",
            category=category,
            sensitive=category in SENSITIVE_CATEGORIES,
            content="note",
        )
        for kind, category in rows
    ]
    capabilities = capabilities_for(consumer)
    if context not in capabilities.contexts:
        with pytest.raises(NotPermitted):
            stm_reader(
                member_id=member_id, capabilities=capabilities, client_id=None, context=context
            )
        return
    reader = stm_reader(
        member_id=member_id, capabilities=capabilities, client_id=None, context=context
    )
    state = _member_state(member_id, frozenset(consents))
    result = stm_gate(built, reader=reader, state=state, now=NOW)
    returned = {id(view.row) for view in result.views}
    assert len(result.views) + sum(result.withheld.values()) == len(built)
    for row in built:
        verdict = decide(stm_item(row), reader, state, NOW)
        assert (id(row) in returned) == (verdict is None)
        if id(row) in returned:
            assert "data_processing" in consents
            if row.sensitive:
                assert f"category:{row.category}" in consents
                assert context in SENSITIVE_CONTEXTS[row.category]
    for view in result.views:
        assert view.content == "note"


# --- expiry (D1, D2) --------------------------------------------------------------------------


def test_expiry_hard_deletes_ordinary_rows_and_anonymizes_sensitive_rows_in_place():
    # given
    member = member_with("category:medical")
    ordinary = write(member, now=NOW)
    sensitive = write(member, category="medical", content="takes insulin", now=NOW)
    alive = write(member, scope_kind="research_task", now=NOW)
    # when
    report = stm_expire_due(now=NOW + timedelta(seconds=901))
    # then
    assert report.as_dict() == {"deleted": 1, "anonymized": 1}
    assert not ShortTermMemory.objects.filter(pk=ordinary.pk).exists()
    kept = ShortTermMemory.objects.get(pk=sensitive.pk)
    assert kept.content == "" and kept.content_digest == ""
    assert kept.anonymized_at == NOW + timedelta(seconds=901)
    assert (kept.category, kept.scope_kind, kept.member_id) == (
        "medical",
        "user_session",
        member.pk,
    )
    assert ShortTermMemory.objects.filter(pk=alive.pk).exists()
    [deleted] = events("hierarchy.stm.deleted", stm_id=str(ordinary.pk))
    assert deleted.payload["transition"] == "d1"
    [anonymized] = events("hierarchy.stm.anonymized", stm_id=str(sensitive.pk))
    assert anonymized.payload["transition"] == "d2"
    # and again: idempotent
    assert stm_expire_due(now=NOW + timedelta(seconds=902)).as_dict() == {
        "deleted": 0,
        "anonymized": 0,
    }


def test_withdrawing_a_category_consent_ends_that_working_memory_at_once():
    member = member_with("category:medical")
    sensitive = write(member, category="medical", content="takes insulin")
    ordinary = write(member)
    record(member, "category:medical", kind="withdrawal")
    report = stm_consent_cascade(member_id=member.pk, consent_type="category:medical")
    assert report.as_dict() == {"deleted": 0, "anonymized": 1}
    assert ShortTermMemory.objects.get(pk=sensitive.pk).anonymized_at is not None
    assert ShortTermMemory.objects.get(pk=ordinary.pk).content == "prefers morning walks"
    assert events("hierarchy.stm.anonymized", reason="consent")


def test_the_consent_ended_signal_drives_the_cascade(django_capture_on_commit_callbacks):
    member = member_with("category:medical")
    row = write(member, category="medical", content="takes insulin")
    with django_capture_on_commit_callbacks(execute=True):
        record(member, "category:medical", kind="withdrawal")
    # The category's erasure extent takes the row (memory's cascade runs first); were it
    # still there, the hierarchy's own cascade would have anonymized it. Either way no
    # content is left.
    assert not ShortTermMemory.objects.filter(pk=row.pk, anonymized_at__isnull=True).exists()


def test_the_data_rights_purge_erases_every_row_of_the_member():
    member = member_with("category:medical")
    write(member)
    write(member, category="medical", content="takes insulin")
    assert stm_purge_member(member_id=member.pk) == 2
    assert not ShortTermMemory.objects.filter(member=member).exists()
    assert events("hierarchy.stm.purged")[0].payload["purged_count"] == 2


# --- re-scope and demote -----------------------------------------------------------------------


def test_moving_a_row_across_scopes_is_illegal_for_a_surface():
    row = write(member_with())
    with pytest.raises(IllegalTransition) as caught:
        stm_rescope(
            row=row,
            scope_kind="agent_run",
            scope_id="run-9",
            actor=service_actor(),
            admin_override=True,
            justification="because I want to",
        )
    assert caught.value.rule == "stm-cross-scope"
    assert ShortTermMemory.objects.get(pk=row.pk).scope_id == "s-1"


def test_an_operator_override_moves_a_row_with_a_justification_and_is_audited():
    row = write(member_with())
    operator = Actor.of(OperatorFactory(role="admin"))
    with pytest.raises(InvalidInput):
        stm_rescope(
            row=row,
            scope_kind="agent_run",
            scope_id="run-9",
            actor=operator,
            admin_override=True,
            justification="",
        )
    moved = stm_rescope(
        row=row,
        scope_kind="agent_run",
        scope_id="run-9",
        actor=operator,
        admin_override=True,
        justification="agent crashed; moving its state to the retry run",
    )
    assert (moved.scope_kind, moved.scope_id) == ("agent_run", "run-9")
    [override] = events("hierarchy.stm.admin_rescoped")
    assert override.payload["transition"] == "stm-x"
    [rescoped] = events("hierarchy.stm.rescoped", stm_id=str(row.pk))
    assert rescoped.payload["access_record_id"] == override.payload["access_record_id"]


def test_demote_copies_a_live_entry_into_working_memory_that_references_it():
    member = member_with()
    entry = remember(member, body="I take my coffee black").entry
    row = stm_demote(
        member=member,
        entry_id=entry.pk,
        scope_kind="agent_run",
        scope_id="run-1",
        actor=service_actor(),
        now=NOW,
    )
    assert row.related_entry_ids == [str(entry.pk)]
    assert row.content == "I take my coffee black"
    assert row.ttl_expires == NOW + timedelta(seconds=600)
    [event] = events("hierarchy.stm.demoted", stm_id=str(row.pk))
    assert event.payload["entry_id"] == str(entry.pk)
    assert event.payload["transition"] == "t7"
    assert_no_content_in_chain("coffee black")


def test_demote_as_a_workbench_seed_is_rc3():
    member = member_with()
    entry = remember(member).entry
    row = stm_demote(
        member=member,
        entry_id=entry.pk,
        scope_kind="admin_session",
        scope_id="bench-1",
        actor=Actor.system("memory-inspect"),
        workbench=True,
    )
    assert events("hierarchy.stm.demoted", stm_id=str(row.pk))[0].payload["transition"] == "rc3"


def _hold(member, entry) -> uuid.UUID:
    request_id = uuid.uuid4()
    memory_hold_place(
        member_id=member.pk,
        entry_ids=[str(entry.pk)],
        request_id=request_id,
        release_after=timezone.now() + timedelta(days=7),
        actor=Actor.system("test"),
    )
    return request_id


@pytest.mark.parametrize("change", ["pause", "draft", "forget", "hold", "auto-forget"])
def test_demote_refuses_an_entry_the_gate_withholds_and_copies_nothing(change):
    # given
    member = member_with()
    entry = remember(member, body="I take my coffee black").entry
    if change == "auto-forget":
        # older than the member's choice, between two sweeps: not erased yet
        memory_settings(member, auto_forget_months={"profile": 3})
        MemoryEntry.objects.filter(pk=entry.pk).update(
            updated_at=timezone.now() - timedelta(days=92)
        )
    elif change == "pause":
        memory_pause(entry=entry, actor=Actor.of(member))
    elif change == "draft":
        MemoryEntry.objects.filter(pk=entry.pk).update(lifecycle="draft")
    elif change == "forget":
        memory_tombstone(entry=entry, actor=Actor.of(member))
    else:
        _hold(member, entry)
    # when
    with pytest.raises(Conflict) as refused:
        stm_demote(
            member=member,
            entry_id=entry.pk,
            scope_kind="user_session",
            scope_id="s-1",
            actor=Actor.system("memory-inspect"),
            workbench=True,
        )
    # then
    assert refused.value.code == "entry-not-active"
    assert not ShortTermMemory.objects.exists()
    assert not events("hierarchy.stm.demoted")


def test_a_demoted_copy_is_withheld_while_its_entry_is_under_the_entrys_reason():
    # given: a copy of an active entry in the member's session
    member = member_with()
    entry = remember(member, body="I take my coffee black").entry
    copy = stm_demote(
        member=member,
        entry_id=entry.pk,
        scope_kind="user_session",
        scope_id="s-1",
        actor=Actor.system("memory-inspect"),
        workbench=True,
    )
    reader = stm_reader(
        member_id=member.pk,
        capabilities=capabilities_for("assistant"),
        client_id=None,
        context="general",
    )

    def visible() -> tuple[list, dict]:
        result = read(member)
        return [v.content for v in result.views], result.withheld

    assert visible() == (["I take my coffee black"], {})
    # when the member pauses the entry, then resumes it
    entry = memory_pause(entry=entry, actor=Actor.of(member))
    assert visible() == ([], {"user-pause": 1})
    assert not stm_visible(copy, reader=reader)  # refresh and consolidate: 404
    entry = memory_resume(entry=entry, actor=Actor.of(member))
    assert visible() == (["I take my coffee black"], {})
    # a data-rights hold, then its release
    request_id = _hold(member, entry)
    assert visible() == ([], {"deletion-hold": 1})
    memory_hold_release(member_id=member.pk, request_id=request_id, actor=Actor.system("test"))
    assert visible()[0] == ["I take my coffee black"]
    # forgotten: the erasure takes the short-term copy with the entry's text
    memory_tombstone(entry=entry, actor=Actor.of(member))
    assert visible() == ([], {})
    assert not ShortTermMemory.objects.filter(pk=copy.pk).exists()


def test_a_row_is_withheld_while_any_entry_it_points_at_is():
    member = member_with()
    kept = remember(member, subject="walks", body="I walk every morning").entry
    paused = remember(member, subject="coffee", body="I take my coffee black").entry
    both = write(
        member, content="wants a route past a cafe", related_entry_ids=[kept.pk, paused.pk]
    )
    one = write(member, content="wants a route", related_entry_ids=[kept.pk])
    memory_pause(entry=paused, actor=Actor.of(member))
    result = read(member)
    assert [v.row.pk for v in result.views] == [one.pk]
    assert result.withheld == {"user-pause": 1}
    assert both.pk not in {v.row.pk for v in result.views}


def test_the_gate_reads_the_entries_of_a_whole_read_in_one_query(django_assert_num_queries):
    # given: rows pointing at several entries, one paused
    member = member_with()
    entries = [remember(member, subject=f"s-{n}", body=f"fact {n}").entry for n in range(3)]
    memory_pause(entry=entries[0], actor=Actor.of(member))
    for entry in entries:
        write(member, content=f"about {entry.subject}", related_entry_ids=[entry.pk])
    write(member, content="about nothing in particular")
    rows = list(stm_rows_for_scope(member_id=member.pk, scope_id="s-1"))
    reader = stm_reader(
        member_id=member.pk,
        capabilities=capabilities_for("assistant"),
        client_id=None,
        context="general",
    )
    state = stm_member_state(member_id=member.pk, scope_id="s-1")
    # when / then
    with django_assert_num_queries(1):
        result = stm_gate(rows, reader=reader, state=state)
    assert len(result.views) == 3 and result.withheld == {"user-pause": 1}
    # and none at all when no row names an entry
    plain = [row for row in rows if not row.related_entry_ids]
    with django_assert_num_queries(0):
        assert len(stm_gate(plain, reader=reader, state=state).views) == 1
