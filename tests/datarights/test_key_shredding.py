"""Crypto-shredding (`memory.forgetting.shredding`): erasing everything of a member
destroys their keys once the erasure commits, so every copy of the main database taken
before it (a "backup": the sealed values read raw from the tables at any time) no longer
opens for them; while anything of theirs is still sealed (held content an erasure left)
the key is kept, said why, and destroyed once that content is gone. Another member's
content always opens.

Held content that survives an erasure of everything is simulated: in Iris today a full
clear and a member-wide data-rights delete purge held rows too (the holds go with them),
so the kept branch only fires for content an erasure does not reach. The machine makes
the short-term store honour its holds in an erasure of everything (`_honour_holds`).
"""

import base64
import uuid
from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.test import TestCase
from django.utils import timezone
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from datarights.enums import RequestStatus
from hierarchy import dsar_store
from hierarchy.models import ShortTermHold, ShortTermMemory
from iris_site.audit.actions import AuditAction
from iris_site.audit.events import Actor
from iris_site.keys import envelope
from iris_site.keys.envelope import PREFIX, Unreadable, open_sealed
from iris_site.models import AuditEvent
from memory.enums import ScopeKind
from memory.forgetting.erasure import memory_erase
from memory.forgetting.services import memory_clear_purge_due, memory_clear_request
from memory.forgetting.shredding import (
    member_keys_shred_due,
    member_keys_shred_pending,
    member_sealed_remaining,
    sealed_columns,
)
from memory.forgetting.stores import Hold, extent_hold, extent_release
from memory.models import MemoryEntry
from memory.turns import conversation_turn_append
from tests.datarights.factories import process, submit
from tests.hierarchy.stm_factories import write as stm_write
from tests.iris_site.factories import ServiceClientFactory
from tests.memory.factories import consenting_member, remember

SURFACE = {}


def sealed_tokens() -> dict[str, set[tuple[str, str]]]:
    """Every sealed value in the main database, read raw (as a dump holds it), by the
    member its header names: (column context, token)."""
    found: dict[str, set[tuple[str, str]]] = {}
    with connection.cursor() as cursor:
        for model, lookups in sealed_columns():
            table = model._meta.db_table
            for _, names in lookups:
                for name in names:
                    column = model._meta.get_field(name).column
                    cursor.execute(f'SELECT "{column}" FROM "{table}"')
                    for (value,) in cursor.fetchall():
                        if isinstance(value, str) and value.startswith(PREFIX):
                            found.setdefault(_member_of(value), set()).add(
                                (f"{table}.{column}", value)
                            )
    return found


def _member_of(token: str) -> str:
    payload = token[len(PREFIX) :]
    raw = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
    return str(uuid.UUID(bytes=raw[:16]))


def opens(context: str, token: str) -> bool:
    return not isinstance(open_sealed(token, context), Unreadable)


def _honour_holds(*, member_id, reason: str = "") -> int:
    """The short-term store's erasure of everything, leaving held rows (a legal hold)."""
    rows = ShortTermMemory.objects.filter(member_id=member_id, deletion_hold__isnull=True)
    count, _ = rows.delete()
    return count


class ShredMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.members = [consenting_member(), consenting_member()]
        self.subject = str(self.members[0].pk)
        self.surface = Actor.of(SURFACE["assistant"])
        self.writes = 0
        self.live: dict[str, set] = {str(m.pk): set() for m in self.members}  # must open
        self.shredded: set = set()  # sealed before a shred of the subject: never opens again
        self.holds: list[uuid.UUID] = []

    def _backup(self) -> None:
        """A backup now: every sealed value, kept for the invariants."""
        for member_id, tokens in sealed_tokens().items():
            if member_id in self.live:
                self.live[member_id] |= tokens - self.shredded

    @rule(who=st.sampled_from([0, 1]), kind=st.sampled_from(["entry", "turn", "short-term"]))
    def write(self, who, kind):
        member = self.members[who]
        self.writes += 1
        text = f"fact {self.writes} zebra{self.writes}"
        if kind == "entry":
            remember(member, subject=f"s{self.writes % 3}", body=text)
        elif kind == "turn":
            conversation_turn_append(
                member=member,
                session_id="s-1",
                speaker="member",
                text=text,
                consumer="assistant",
                actor=self.surface,
            )
        else:
            stm_write(member, actor=self.surface, content=text)
        self._backup()

    @rule()
    def hold(self):
        """A soft delete's hold over everything of the subject (a row to hold first)."""
        self.write(0, "short-term")
        request_id = uuid.uuid4()
        extent_hold(
            Hold(
                member_id=self.subject,
                request_id=request_id,
                release_after=timezone.now() + timedelta(days=2),
                everything=True,
            )
        )
        self.holds.append(request_id)

    @precondition(lambda self: self.holds)
    @rule()
    def release(self):
        extent_release(member_id=self.subject, request_id=self.holds.pop(0))

    def _shreds(self) -> int:
        return AuditEvent.objects.filter(
            target_member_id=self.subject, action=AuditAction.MEMORY_MEMBER_KEYS_SHREDDED
        ).count()

    def _after_erasure(self, held_before: bool, shreds_before: int) -> None:
        shredded = self._shreds() > shreds_before
        # Shredded exactly when nothing of the subject was left sealed.
        assert shredded is (not held_before), (held_before, member_sealed_remaining(self.subject))
        if shredded:
            self.shredded |= self.live[self.subject]
            self.live[self.subject] = set()
        else:
            assert member_keys_shred_pending(self.subject) or not held_before
        self._backup()

    def _held(self) -> bool:
        return ShortTermHold.objects.filter(member_id=self.subject).exists()

    @rule()
    def erase_everything(self):
        """A member-wide data-rights delete's last step (`erase-member-stores`)."""
        held, before = self._held(), self._shreds()
        with TestCase.captureOnCommitCallbacks(execute=True), transaction.atomic():
            memory_erase(
                member_id=self.subject,
                entry_ids=MemoryEntry.objects.filter(member_id=self.subject).values_list(
                    "pk", flat=True
                ),
                actor=Actor.system("data-rights-hard-delete"),
                reason="data-rights-hard-delete",
                purge=True,
                everything=True,
            )
        self._after_erasure(held, before)

    @rule()
    def full_clear(self):
        member = self.members[0]
        memory_clear_request(member=member, actor=Actor.of(member))
        held, before = self._held(), self._shreds()
        with TestCase.captureOnCommitCallbacks(execute=True):
            memory_clear_purge_due(now=timezone.now() + timedelta(days=8))
        self._after_erasure(held, before)

    @rule()
    def sweep(self):
        """The scheduled sweep shreds a pending member once nothing of theirs is sealed."""
        pending, held, before = (
            member_keys_shred_pending(self.subject),
            self._held(),
            self._shreds(),
        )
        member_keys_shred_due()
        if pending and not member_sealed_remaining(self.subject):
            assert self._shreds() == before + 1
            self.shredded |= self.live[self.subject]
            self.live[self.subject] = set()
        else:
            assert self._shreds() == before or not held

    @invariant()
    def backups_open_exactly_as_the_keys_allow(self):
        envelope.cache_clear()
        for member_id, tokens in self.live.items():
            for context, token in tokens:
                assert opens(context, token), (member_id == self.subject, context)
        for context, token in self.shredded:
            opened = open_sealed(token, context)
            assert isinstance(opened, Unreadable) and opened.reason == "erased", context

    @invariant()
    def held_content_reads(self):
        for row in ShortTermMemory.objects.filter(
            member_id=self.subject, deletion_hold__isnull=False
        ):
            assert not isinstance(row.content, Unreadable)


@pytest.mark.django_db
def test_erasure_shreds_unless_held_and_other_members_always_read(monkeypatch):
    monkeypatch.setattr(dsar_store, "stm_purge_member", _honour_holds)
    SURFACE["assistant"] = ServiceClientFactory(consumer="assistant")
    run_state_machine_as_test(
        ShredMachine,
        settings=settings(
            max_examples=20,
            stateful_step_count=12,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow],
            database=None,
        ),
    )
    # Both branches ran (the examples share this test's database).
    for action in (AuditAction.MEMORY_MEMBER_KEYS_SHREDDED, AuditAction.MEMORY_MEMBER_KEYS_KEPT):
        assert AuditEvent.objects.filter(action=action).exists(), action


@pytest.mark.django_db
def test_a_member_wide_data_rights_delete_shreds_after_its_commit():
    member, other = consenting_member(), consenting_member()
    remember(member, subject="meds", body="takes quokkazine daily")
    remember(other, subject="meds", body="takes wombatol daily")
    before = sealed_tokens()
    request = submit(
        member,
        "delete",
        {"mode": "hard", "scopes": sorted(ScopeKind.values), "retention_grace_ms": 0},
    )
    with TestCase.captureOnCommitCallbacks(execute=True):
        request = process(request)
    assert request.status == RequestStatus.COMPLETED
    envelope.cache_clear()
    assert before[str(member.pk)]
    for context, token in before[str(member.pk)]:
        opened = open_sealed(token, context)
        assert isinstance(opened, Unreadable) and opened.reason == "erased"
    for context, token in before[str(other.pk)]:
        assert opens(context, token)
    [event] = AuditEvent.objects.filter(
        target_member_id=member.pk, action=AuditAction.MEMORY_MEMBER_KEYS_SHREDDED
    )
    assert set(event.payload) == {"reason", "destroyed_count"}
    # The member writes again, under a new generation.
    remember(member, subject="meds", body="starts afresh")
    assert MemoryEntry.objects.get(member=member).body == "starts afresh"


@pytest.mark.django_db
def test_a_category_delete_shreds_nothing():
    member = consenting_member("category:medical")
    remember(member, subject="meds", body="takes quokkazine daily", category="medical")
    remember(member, subject="tea", body="likes tea")
    request = submit(member, "delete", {"mode": "hard", "categories": ["medical"]})
    with TestCase.captureOnCommitCallbacks(execute=True):
        process(request)
    assert not AuditEvent.objects.filter(
        target_member_id=member.pk, action__startswith="memory.member_keys."
    ).exists()
    assert MemoryEntry.objects.get(member=member).body == "likes tea"
