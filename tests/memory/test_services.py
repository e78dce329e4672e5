"""The memory write side: the conflict ladder, the storage gate, revisions, forgetting,
full clear and its purge, off-the-record, and the episodic audit each write leaves."""

import itertools
import json
from datetime import timedelta

import pytest
from django.db import DatabaseError, transaction
from django.utils import timezone

from iris_site.audit.events import Actor
from iris_site.crypto import keyed_digest
from iris_site.errors import Conflict, NotPermitted, PolicyRefusal
from memory.entities.services import person_forget
from memory.enums import ConflictRule, Lifecycle, Origin
from memory.forgetting.services import (
    memory_clear_cancel,
    memory_clear_purge_due,
    memory_clear_request,
    memory_tombstone,
)
from memory.models import (
    MemoryClearRequest,
    MemoryEntry,
    MemoryNotice,
    MemoryRevision,
    RecallRecord,
)
from memory.selectors import entry_contract, memory_recall_list, memory_revision_list
from memory.services import (
    memory_confirm,
    memory_edit,
    memory_notice_answer,
    memory_off_the_record_set,
)
from tests.consent.factories import record
from tests.iris_site.factories import ServiceClientFactory, TenantFactory
from tests.memory.factories import (
    TEST_OPERATOR,
    assert_no_audit_mentions,
    consenting_member,
    memory_audit,
    remember,
)

pytestmark = pytest.mark.django_db

COFFEE = "I take my coffee black"
TEA = "I switched to green tea"


def surface(consumer: str = "assistant") -> Actor:
    return Actor.of(ServiceClientFactory(consumer=consumer))


def lifecycle(entry) -> str:
    return MemoryEntry.objects.values_list("lifecycle", flat=True).get(pk=entry.pk)


# --- The conflict ladder, one test per rule -----------------------------------------------


def test_admin_copilot_never_trumps_what_the_member_stated():
    # given
    member = consenting_member()
    stated = remember(member, subject="coffee", body=COFFEE).entry
    # when
    result = remember(
        member,
        subject="coffee",
        body=TEA,
        origin=Origin.OPERATOR_COPILOT,
        scope={"kind": "operator-copilot", "operator_id": str(TEST_OPERATOR.id)},
    )
    # then: the member's word stands, and they are asked instead of overruled
    assert not result.created
    assert result.conflict_rule == ConflictRule.ADMIN_COPILOT_NEVER_TRUMPS_CONSUMER_STATED
    assert result.entry.pk == stated.pk and lifecycle(stated) == Lifecycle.ACTIVE
    notice = result.notice
    assert notice.kind == MemoryNotice.Kind.CONFLICT_QUESTION
    assert notice.proposed_entry.lifecycle == Lifecycle.DRAFT
    assert notice.proposed_entry.body == TEA
    [event] = memory_audit(member, "memory.conflict.resolved")
    assert event.payload["rule"] == ConflictRule.ADMIN_COPILOT_NEVER_TRUMPS_CONSUMER_STATED
    assert event.payload["outcome"] == "keep_existing"
    assert event.payload["notice_id"] == str(notice.pk)
    assert_no_audit_mentions(COFFEE, TEA)


@pytest.mark.parametrize("note_first", [True, False])
def test_an_operator_note_and_an_assistants_inference_never_replace_each_other(note_first):
    # given an assistant's inference and an operator's copilot note about the same thing
    member = consenting_member()
    copilot = {
        "origin": Origin.OPERATOR_COPILOT,
        "scope": {"kind": "operator-copilot", "operator_id": str(TEST_OPERATOR.id)},
    }
    writes = [
        lambda: remember(member, subject="coffee", body=TEA, **copilot),
        lambda: remember(member, subject="coffee", body=COFFEE, origin=Origin.MODEL_INFERRED),
    ]
    if not note_first:
        writes.reverse()
    # when both are written, in either order
    first, second = (write() for write in writes)
    # then both are stored and both stay active: neither side of the operator boundary
    # rewrites the other
    assert second.created and second.conflict_rule is None
    assert lifecycle(first.entry) == Lifecycle.ACTIVE
    assert lifecycle(second.entry) == Lifecycle.ACTIVE
    assert not memory_audit(member, "memory.conflict.resolved")


def test_the_members_word_still_replaces_an_operator_note():
    # given
    member = consenting_member()
    note = remember(
        member,
        subject="coffee",
        body=TEA,
        origin=Origin.OPERATOR_COPILOT,
        scope={"kind": "operator-copilot", "operator_id": str(TEST_OPERATOR.id)},
    ).entry
    # when
    stated = remember(member, subject="coffee", body=COFFEE)
    # then
    assert stated.conflict_rule == ConflictRule.EXPLICIT_USER_TRUMPS_INFERRED
    assert lifecycle(note) == Lifecycle.SUPERSEDED


def test_explicit_user_statement_supersedes_an_inference():
    member = consenting_member()
    inferred = remember(member, subject="coffee", origin=Origin.MODEL_INFERRED).entry
    # when
    result = remember(member, subject="coffee", body=TEA)
    # then
    assert result.created and result.conflict_rule == ConflictRule.EXPLICIT_USER_TRUMPS_INFERRED
    assert lifecycle(inferred) == Lifecycle.SUPERSEDED
    assert lifecycle(result.entry) == Lifecycle.ACTIVE
    [event] = memory_audit(member, "memory.conflict.resolved")
    assert event.payload["outcome"] == "replace_existing"
    assert event.payload["new_entry_id"] == str(result.entry.pk)
    assert [e.payload["entry_id"] for e in memory_audit(member, "memory.entry.superseded")] == [
        str(inferred.pk)
    ]


def test_an_inference_never_overwrites_an_explicit_statement():
    member = consenting_member()
    stated = remember(member, subject="coffee").entry
    result = remember(
        member,
        subject="coffee",
        body=TEA,
        origin=Origin.MODEL_INFERRED,
        actor=surface(),
        scope={"kind": "session", "session_id": "s-1"},
    )
    assert not result.created
    assert result.conflict_rule == ConflictRule.EXPLICIT_USER_TRUMPS_INFERRED
    assert result.entry.pk == stated.pk and result.notice is not None


def test_user_confirmed_fact_outranks_an_inference():
    member = consenting_member()
    confirmed = remember(member, subject="coffee", origin=Origin.USER_CONFIRMED).entry
    # when an inference contradicts it
    kept = remember(member, subject="coffee", body=TEA, origin=Origin.MODEL_INFERRED)
    # then it is kept, and the member is asked
    assert not kept.created
    assert kept.conflict_rule == ConflictRule.USER_CONFIRMED_TRUMPS_INFERRED
    assert kept.entry.pk == confirmed.pk and kept.notice is not None
    # and no write asserts a confirmation: it is the member's own action on an inference
    other = remember(
        member, subject="walks", body="Maybe likes walks", origin=Origin.MODEL_INFERRED
    ).entry
    assert memory_confirm(entry=other, actor=Actor.of(member)).origin == Origin.USER_CONFIRMED
    with pytest.raises(NotPermitted) as refusal:
        remember(
            member,
            subject="walks",
            body="Likes morning walks",
            origin=Origin.USER_CONFIRMED,
            actor=surface(),
            scope={"kind": "session", "session_id": "s-1"},
        )
    assert refusal.value.code == "origin-not-allowed"


def test_most_recent_wins_between_equals():
    member = consenting_member()
    now = timezone.now()
    first = remember(member, subject="coffee", origin=Origin.MODEL_INFERRED, now=now).entry
    # when a later inference arrives, it wins
    later = remember(
        member,
        subject="coffee",
        body=TEA,
        origin=Origin.MODEL_INFERRED,
        now=now + timedelta(minutes=1),
    )
    assert later.created and later.conflict_rule == ConflictRule.MOST_RECENT_WINS
    assert lifecycle(first) == Lifecycle.SUPERSEDED
    # and an older one, arriving late, loses without asking (no member fact at stake)
    stale = remember(
        member,
        subject="coffee",
        body="Drinks espresso",
        origin=Origin.MODEL_INFERRED,
        now=now - timedelta(days=1),
    )
    assert not stale.created and stale.conflict_rule == ConflictRule.MOST_RECENT_WINS
    assert stale.entry.pk == later.entry.pk and stale.notice is None
    assert MemoryEntry.objects.filter(member=member).count() == 2


def test_accepting_a_notice_takes_the_proposal_and_supersedes_the_old_fact():
    member = consenting_member()
    stated = remember(member, subject="coffee").entry
    notice = remember(member, subject="coffee", body=TEA, origin=Origin.MODEL_INFERRED).notice
    # when
    answered = memory_notice_answer(notice=notice, accept=True, actor=Actor.of(member))
    # then
    assert answered.state == MemoryNotice.State.ACCEPTED
    proposal = MemoryEntry.objects.get(pk=notice.proposed_entry_id)
    assert (proposal.lifecycle, proposal.origin) == (Lifecycle.ACTIVE, Origin.USER_CONFIRMED)
    assert lifecycle(stated) == Lifecycle.SUPERSEDED
    with pytest.raises(Conflict):
        memory_notice_answer(notice=notice, accept=False, actor=Actor.of(member))


def test_declining_a_notice_drops_the_proposal():
    member = consenting_member()
    stated = remember(member, subject="coffee").entry
    notice = remember(member, subject="coffee", body=TEA, origin=Origin.MODEL_INFERRED).notice
    memory_notice_answer(notice=notice, accept=False, actor=Actor.of(member))
    assert lifecycle(stated) == Lifecycle.ACTIVE
    assert MemoryEntry.objects.get(pk=notice.proposed_entry_id).lifecycle == Lifecycle.TOMBSTONED


# --- The privacy storage gate and scope policy --------------------------------------------


def test_storage_gate_refuses_a_sensitive_write_without_consent():
    member = consenting_member()
    with pytest.raises(PolicyRefusal) as refusal:
        remember(member, category="medical", body="I use an inhaler for asthma")
    assert refusal.value.code == "sensitive-category-without-consent"
    assert refusal.value.status_code == 422
    assert not MemoryEntry.objects.exists() and not MemoryRevision.objects.exists()
    [refused] = memory_audit(member)
    assert (refused.action, refused.payload["reason"]) == (
        "memory.write.refused",
        "sensitive-category-without-consent",
    )


def test_a_sensitive_inference_is_never_auto_persisted():
    member = consenting_member("category:medical")
    with pytest.raises(PolicyRefusal) as refusal:
        remember(member, category="medical", body="Seems asthmatic", origin=Origin.MODEL_INFERRED)
    assert refusal.value.code == "sensitive-inference-requires-confirmation"
    assert not MemoryEntry.objects.exists()


def test_a_sensitive_memory_with_consent_carries_its_consent_record():
    member = consenting_member("category:medical")
    entry = remember(member, category="medical", body="I use an inhaler for asthma").entry
    [consent] = entry_contract(entry).consent
    assert consent.category == "medical" and consent.revoked_at is None


def test_a_sensitive_interaction_with_someone_needs_its_own_consent():
    member = consenting_member()
    with pytest.raises(PolicyRefusal) as refusal:
        remember(
            member,
            category="relationship",
            body="Had a hard talk with my sister",
            multi_actor={"actor_name": "Anna", "sensitive_interaction": True},
        )
    assert refusal.value.code == "multi-actor-sensitive-without-consent"


def test_without_base_consents_the_scope_is_suppressed():
    member = consenting_member()
    record(member, "data_storage", kind="withdrawal")
    with pytest.raises(PolicyRefusal) as refusal:
        remember(member)
    assert refusal.value.code == "scope-suppressed"


@pytest.mark.parametrize(
    ("consumer", "scope"),
    [
        (
            "shell",
            {"kind": "pose", "session_id": "s", "scene_id": "c", "pose_id": "p", "avatar_id": "a"},
        ),
        (
            "tara",
            {"kind": "operator-copilot", "operator_id": "6f1f0a56-9f43-4a4e-9d0e-5d3c1f1b7a10"},
        ),
        ("psyche", {"kind": "notebook", "notebook_id": "n-1"}),
    ],
)
def test_a_consumer_outside_a_scopes_allow_list_is_not_permitted(consumer, scope):
    member = consenting_member("sensitive_data")
    with pytest.raises(NotPermitted) as refusal:
        remember(
            member,
            scope=scope,
            consumer=consumer,
            actor=surface(consumer),
            origin=Origin.MODEL_INFERRED,
        )
    assert refusal.value.code == "consumer-not-allowed-for-scope"
    assert not MemoryEntry.objects.exists()


def test_tenant_memory_requires_membership_of_that_tenant():
    tenant, other = TenantFactory(), TenantFactory()
    member = consenting_member(tenants=[tenant])
    with pytest.raises(NotPermitted) as refusal:
        remember(member, scope={"kind": "tenant", "tenant_id": str(other.pk)}, consumer="metis")
    assert refusal.value.code == "not-a-tenant-member"
    entry = remember(member, scope={"kind": "tenant", "tenant_id": str(tenant.pk)}).entry
    entry.refresh_from_db()
    assert entry.tenant_id == tenant.pk


def test_off_the_record_writes_nothing():
    member = consenting_member()
    memory_off_the_record_set(member=member, active=True, actor=Actor.of(member), session_id="s-1")
    with pytest.raises(PolicyRefusal) as refusal:
        remember(member, scope={"kind": "session", "session_id": "s-1"})
    assert refusal.value.code == "paused"
    # another session is unaffected
    assert remember(member, scope={"kind": "session", "session_id": "s-2"}).created
    [event] = memory_audit(member, "memory.off_the_record.changed")
    assert event.payload == {"active": True, "session_scoped": True}


# --- Revisions -----------------------------------------------------------------------------


def test_an_entry_edited_five_times_has_a_complete_ordered_chain():
    # given
    member = consenting_member()
    entry = remember(member, subject="coffee").entry
    # when
    bodies = [f"Edit number {n} of my coffee habit" for n in range(1, 6)]
    for body in bodies:
        entry = memory_edit(entry=entry, actor=Actor.of(member), body=body)
    # then
    revisions = list(memory_revision_list(member_id=member.pk, entry_id=entry.pk))
    assert [r.number for r in revisions] == [1, 2, 3, 4, 5, 6]
    assert revisions[0].previous_revision_id is None
    for previous, revision in itertools.pairwise(revisions):
        assert revision.previous_revision_id == previous.pk
        assert revision.changed_fields == ["body"]
    assert [r.action for r in revisions] == ["created"] + ["edited"] * 5
    assert [r.content["body"] for r in revisions] == [COFFEE, *bodies]
    entry.refresh_from_db()
    assert entry.revision_id == revisions[-1].pk and entry.revision_count == 6
    edits = memory_audit(member, "memory.entry.edited")
    assert [e.payload["revision_number"] for e in edits] == [2, 3, 4, 5, 6]
    assert_no_audit_mentions(COFFEE, *bodies)


def test_a_raw_update_of_a_revision_fails_in_the_database():
    member = consenting_member()
    entry = remember(member).entry
    revision = MemoryRevision.objects.get(entry=entry)
    with pytest.raises(DatabaseError), transaction.atomic():
        MemoryRevision.objects.filter(pk=revision.pk).update(actor="system")
    with pytest.raises(DatabaseError), transaction.atomic():
        MemoryRevision.objects.filter(pk=revision.pk).delete()
    revision.refresh_from_db()
    assert revision.actor == "member" and revision.content["body"] == COFFEE


def test_saving_a_revision_again_is_refused():
    member = consenting_member()
    revision = MemoryRevision.objects.get(entry=remember(member).entry)
    with pytest.raises(ValueError, match="immutable"):
        revision.save()


def test_a_tombstone_is_terminal():
    member = consenting_member()
    entry = memory_tombstone(entry=remember(member).entry, actor=Actor.of(member))
    with pytest.raises(Conflict) as refusal:
        memory_edit(entry=entry, actor=Actor.of(member), body="Changed my mind")
    assert refusal.value.code == "tombstoned"
    actions = [e.action for e in memory_audit(member)]
    assert actions[0] == "memory.entry.created" and actions[-1] == "memory.entries.erased"
    assert actions.count("memory.entry.tombstoned") == 1


def test_confirming_an_inference_makes_it_user_confirmed():
    member = consenting_member()
    entry = remember(member, origin=Origin.MODEL_INFERRED).entry
    confirmed = memory_confirm(entry=entry, actor=Actor.of(member))
    assert confirmed.origin == Origin.USER_CONFIRMED and confirmed.confidence == 0.9
    with pytest.raises(Conflict):
        memory_confirm(entry=confirmed, actor=Actor.of(member))
    assert memory_audit(member, "memory.entry.confirmed")


# --- Forgetting --------------------------------------------------------------------------


def test_forgetting_an_actor_tombstones_every_entry_that_mentions_them():
    # given
    member = consenting_member()
    anna = [
        remember(
            member,
            category="relationship",
            subject=f"anna-{n}",
            body=f"Anna and I talked about plan {n}",
            multi_actor={"actor_name": "Anna", "relationship_note": "sister"},
        ).entry
        for n in range(3)
    ]
    ben = remember(
        member,
        category="relationship",
        body="Ben lent me a book",
        multi_actor={"actor_name": "Ben"},
    ).entry
    handle = anna[0].actor_handle
    assert {e.actor_handle for e in anna} == {handle} and ben.actor_handle != handle
    # when
    ids = person_forget(member=member, actor_handle=handle, actor=Actor.of(member))
    # then
    assert sorted(ids) == sorted(e.pk for e in anna)
    assert {lifecycle(e) for e in anna} == {Lifecycle.TOMBSTONED}
    assert lifecycle(ben) == Lifecycle.ACTIVE
    [event] = memory_audit(member, "memory.actor.forgotten")
    # the handle stands for a person: the chain keeps a keyed digest of it, not the handle
    assert event.payload == {"actor_digest": keyed_digest(handle), "tombstoned_count": 3}
    assert handle not in json.dumps([e.payload for e in memory_audit(member)])
    assert len(memory_audit(member, "memory.entry.tombstoned")) == 3
    assert_no_audit_mentions("Anna", "sister", "plan 0")


def test_a_full_clear_is_purged_only_after_its_grace_window():
    # given
    member = consenting_member()
    kept_apart = consenting_member()
    entries = [remember(member, subject=s, body=f"I like {s} a lot").entry for s in ("a", "b")]
    memory_edit(entry=entries[0], actor=Actor.of(member), body="I like apples a lot")
    other = remember(kept_apart).entry
    clear = memory_clear_request(member=member, actor=Actor.of(member))
    # when the window has not passed
    assert memory_clear_purge_due(now=clear.purge_after - timedelta(seconds=1)) == 0
    assert MemoryEntry.objects.filter(member=member).count() == 2
    # when it has
    assert memory_clear_purge_due(now=clear.purge_after + timedelta(seconds=1)) == 2
    # then entries and every revision are gone; another member's memory is untouched
    assert not MemoryEntry.objects.filter(member=member).exists()
    assert not MemoryRevision.objects.filter(member_id=member.pk).exists()
    assert MemoryEntry.objects.filter(pk=other.pk).exists()
    clear.refresh_from_db()
    assert clear.state == MemoryClearRequest.State.PURGED
    [purged] = memory_audit(member, "memory.entries.purged")
    assert purged.payload["purged_count"] == 2
    assert memory_audit(member, "memory.clear.requested")
    # and the job is idempotent
    assert memory_clear_purge_due(now=clear.purge_after + timedelta(days=1)) == 0
    assert_no_audit_mentions("I like a a lot", "apples")


def test_a_cancelled_clear_is_never_purged():
    member = consenting_member()
    entry = remember(member).entry
    clear = memory_clear_request(member=member, actor=Actor.of(member))
    with pytest.raises(Conflict):
        memory_clear_request(member=member, actor=Actor.of(member))
    memory_clear_cancel(member=member, actor=Actor.of(member))
    assert memory_clear_purge_due(now=clear.purge_after + timedelta(days=1)) == 0
    assert MemoryEntry.objects.filter(pk=entry.pk).exists()
    assert memory_audit(member, "memory.clear.cancelled")
    with pytest.raises(Conflict):
        memory_clear_cancel(member=member, actor=Actor.of(member))


# --- Selectors ---------------------------------------------------------------------------


def test_recalls_of_one_entry_are_found_on_every_engine():
    member = consenting_member()
    entry, other = remember(member).entry, remember(member, subject="tea", body=TEA).entry
    for returned in ([str(entry.pk)], [str(other.pk)], [str(other.pk), str(entry.pk)]):
        RecallRecord.objects.create(
            member=member,
            surface="assistant",
            consumer="assistant",
            scope_key=f"profile:{member.pk}",
            context="general",
            returned_ids=returned,
            created_at=timezone.now(),
        )
    assert memory_recall_list(member_id=member.pk, entry_id=entry.pk).count() == 2
    assert memory_recall_list(member_id=member.pk, entry_id=other.pk).count() == 2
    assert memory_recall_list(member_id=member.pk).count() == 3


def test_a_notice_without_a_proposal_cannot_be_answered_as_a_conflict():
    member = consenting_member()
    entry = remember(member, origin=Origin.MODEL_INFERRED).entry
    notice = MemoryNotice.objects.create(
        member=member, kind=MemoryNotice.Kind.RECONFIRM, entry=entry, created_at=timezone.now()
    )
    with pytest.raises(Conflict) as refusal:
        memory_notice_answer(notice=notice, accept=True, actor=Actor.of(member))
    assert refusal.value.code == "no-proposal"
    assert lifecycle(entry) == Lifecycle.ACTIVE
