"""The consent-withdrawal cascade, end to end: ledger event → commit → signal → memory."""

from datetime import timedelta

import pytest
from django.utils import timezone

from consent.services import consent_expire_due
from consent.signals import consent_ended
from iris_site.audit.sealing import member_key, resolver_for, seal_value
from iris_site.models import AuditEvent
from memory.contracts import MemoryWriteRequest
from memory.models import MemoryEntry, MemoryRevision
from memory.receivers import forget_on_consent_ended
from memory.services import memory_remember
from memory.sweeps.compaction import memory_entries_compact
from tests.consent.factories import record
from tests.iris_site.factories import MemberFactory
from tests.memory.factories import writer_for

pytestmark = pytest.mark.django_db


def _member(*extra_consents):
    member = MemberFactory()
    for consent_type in ("data_processing", "data_storage", *extra_consents):
        record(member, consent_type)
    return member


def _remember(member, *, category, body, subject, origin="user-stated", scope=None, **more):
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
    return memory_remember(member=member, write=write, actor=writer_for(member, origin)).entry


def test_the_receiver_is_connected_once():
    sync_receivers, _ = consent_ended._live_receivers(sender=None)
    receivers = list(sync_receivers)
    assert receivers.count(forget_on_consent_ended) == 1


def test_withdrawing_a_category_consent_tombstones_its_memory_and_derived_summaries(
    django_capture_on_commit_callbacks,
):
    # given: a medical memory, a summary whose provenance reaches it, an unrelated memory
    member = _member("category:medical")
    medical = _remember(
        member, category="medical", subject="medication", body="I take insulin at night."
    )
    summary = _remember(
        member,
        category="other",
        subject="session recap",
        body="We talked about the evening routine.",
        origin="summarized-from-session",
        provenance=[
            {"kind": "session-summary", "ref": str(medical.pk), "captured_at": timezone.now()}
        ],
    )
    hobby = _remember(member, category="preference", subject="hobby", body="I knit on Sundays.")
    # when
    with django_capture_on_commit_callbacks(execute=True):
        record(member, "category:medical", "withdrawal")
    # then
    lifecycles = dict(MemoryEntry.objects.values_list("pk", "lifecycle"))
    assert lifecycles == {medical.pk: "tombstoned", summary.pk: "tombstoned", hobby.pk: "active"}
    # the text is erased (the chain restarts with its tombstone revision), the episodic
    # events survive the cascade
    [tombstone] = MemoryRevision.objects.filter(entry=medical)
    assert tombstone.number == 2 and tombstone.content["body"] == "(forgotten)"
    forgotten = AuditEvent.objects.get(action="memory.category.forgotten")
    assert forgotten.target_member_id == member.pk
    assert forgotten.actor_role == "consent-cascade"
    # the category is kept sealed under the member's audit key (issue 42)
    assert forgotten.payload == {
        "category": seal_value(member_key(member.pk), "medical"),
        "tombstoned_count": 2,
    }
    tombstoned = AuditEvent.objects.filter(action="memory.entry.tombstoned")
    assert {e.payload["entry_id"] for e in tombstoned} == {str(medical.pk), str(summary.pk)}
    assert AuditEvent.objects.filter(action="consent.event.withdrawal").exists()


def test_an_expired_category_consent_cascades_too(django_capture_on_commit_callbacks):
    # given
    member = _member()
    now = timezone.now()
    record(member, "category:mental_health", valid_until=now + timedelta(days=1))
    entry = _remember(
        member, category="mental_health", subject="therapy", body="I see a therapist weekly."
    )
    # when
    with django_capture_on_commit_callbacks(execute=True):
        assert consent_expire_due(now=now + timedelta(days=2)) == 1
    # then
    entry.refresh_from_db()
    assert entry.lifecycle == "tombstoned"
    forgotten = AuditEvent.objects.get(action="memory.category.forgotten")
    assert resolver_for(member.pk)[forgotten.payload["category"]] == "mental_health"


def test_sensitive_session_memory_is_never_compacted_into_a_summary():
    # given: old medical session memory the member stated
    member = _member("category:medical")
    base = timezone.now()
    stated = _remember(
        member,
        category="medical",
        subject="blood pressure",
        body="My blood pressure readings are high in the mornings.",
        scope={"kind": "session", "session_id": "s-1"},
    )
    # when it is compacted
    result = memory_entries_compact(
        member_id=member.pk,
        scope_key=f"session:{member.pk}:s-1",
        category="medical",
        actor_handle="",
        now=base + timedelta(days=31),
    )
    # then no machine summary of it is stored (it would be an unconfirmed sensitive
    # inference), and the raw memory goes all the same
    assert result.summary is None
    assert result.outcome == "sensitive-inference-requires-confirmation"
    stated.refresh_from_db()
    assert stated.lifecycle == "tombstoned"
    assert not MemoryEntry.objects.filter(member=member, origin="summarized-from-session").exists()


def test_withdrawing_another_consent_type_forgets_nothing(django_capture_on_commit_callbacks):
    member = _member("cross_device")
    entry = _remember(member, category="preference", subject="tea", body="I drink green tea.")
    with django_capture_on_commit_callbacks(execute=True):
        record(member, "cross_device", "withdrawal")
    entry.refresh_from_db()
    assert entry.lifecycle == "active"
    assert not AuditEvent.objects.filter(action="memory.category.forgotten").exists()


def test_nothing_cascades_before_the_withdrawal_commits(django_capture_on_commit_callbacks):
    member = _member("category:medical")
    entry = _remember(member, category="medical", subject="allergy", body="I'm allergic to nuts.")
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        record(member, "category:medical", "withdrawal")
    # the signal is only scheduled; it is sent after a commit, never before
    assert callbacks
    entry.refresh_from_db()
    assert entry.lifecycle == "active"
