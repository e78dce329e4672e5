"""Every door that shows an entry's consent says the same about it, as the ledger stands.

The entry API (detail and list) and the member's data export each show a sensitive
entry's consent records (`ConsentEntry`: `granted_at`, `revoked_at`). A withdrawal, an
expiry or a lapsed end date never rewrites the entry (its revisions are immutable): every
door reads the records through `memory.selectors.ConsentLedgerView`, so after any history
of grants, withdrawals, lapses and expiries they agree with each other and with the
ledger: a record is revoked at the first end of the grant it names, never revived by a
later grant. Recall and the context bundle show no consent records; the member's page
shows none per entry.
"""

import json
from dataclasses import dataclass
from datetime import datetime, timedelta

import pytest
from django.db import transaction
from django.utils import timezone
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from consent.services import consent_expire_due
from datarights.export import artifact_path, read_member
from iris_site.audit.events import iso
from memory.forgetting.services import memory_consent_cascade
from tests.conftest import bearer_client
from tests.consent.factories import record
from tests.datarights.factories import EXPORT, process, submit
from tests.memory.factories import consenting_member, remember

pytestmark = pytest.mark.django_db

MEDICAL = "category:medical"
# A grant's end date, in days after it (None: open-ended).
ENDS = st.sampled_from([None, 2, 5, 3650])
STEP = st.one_of(
    st.tuples(st.just("grant"), ENDS),
    st.tuples(st.just("withdraw"), st.booleans()),  # with its cascade run, or not yet
    st.tuples(st.just("remember"), st.none()),
    st.tuples(st.just("remember"), st.none()),
    st.tuples(st.just("expire"), st.none()),
    st.tuples(st.just("wait"), st.none()),
)
# Every history starts with a grant and a write, so that most say something.
STEPS = (
    st.tuples(ENDS)
    .map(lambda end: [("grant", end[0]), ("remember", None)])
    .flatmap(lambda start: st.lists(STEP, min_size=2, max_size=12).map(lambda rest: start + rest))
)


@dataclass
class Grant:
    at: datetime
    until: datetime | None
    ended: datetime | None = None

    def in_force(self, now: datetime) -> bool:
        return self.ended is None and (self.until is None or self.until > now)

    def revoked_at(self, now: datetime) -> datetime | None:
        if self.ended is not None:
            return self.ended
        return self.until if self.until is not None and self.until <= now else None


def _doors(client, member) -> dict[str, dict[str, list]]:
    """Entry id → its consent records, as each door shows them."""
    doors: dict[str, dict[str, list]] = {"list": {}, "detail": {}, "export": {}}
    page = client.get("/api/v1/me/memories/")
    assert page.status_code == 200, page.content
    assert page.json()["next"] is None
    for entry in page.json()["results"]:
        doors["list"][entry["id"]] = entry["consent"]
    export = process(submit(member, "export", EXPORT))
    assert export.status == "completed", export.progress
    for entry in json.loads(read_member(artifact_path(export)))["entries"]:
        doors["export"][entry["id"]] = entry["consent"]
        detail = client.get(f"/api/v1/me/memories/{entry['id']}/")
        assert detail.status_code == 200, detail.content
        doors["detail"][entry["id"]] = detail.json()["consent"]
    return doors


def _moments(records: list[dict]) -> list[tuple]:
    """Records with their times as instants (each door spells a time its own way)."""
    return [
        (
            r["category"],
            datetime.fromisoformat(r["granted_at"]),
            datetime.fromisoformat(r["revoked_at"]) if r["revoked_at"] else None,
            r["source"],
        )
        for r in records
    ]


def test_after_a_withdrawal_the_entry_api_and_the_export_show_the_same_revoked_consent(
    django_capture_on_commit_callbacks,
):
    # given
    member = consenting_member(MEDICAL)
    inhaler = remember(member, category="medical", subject="inhaler", body="Blue inhaler").entry
    client = bearer_client(member)
    # when the member withdraws (the cascade forgets the memory)
    with django_capture_on_commit_callbacks(execute=True):
        withdrawal = record(member, MEDICAL, kind="withdrawal").event
    doors = _doors(client, member)
    # then both say when it ended
    for door in ("detail", "export"):
        [consent] = doors[door][str(inhaler.pk)]
        assert consent["revoked_at"] is not None, door
        assert datetime.fromisoformat(consent["revoked_at"]) == withdrawal.occurred_at, door
    assert str(inhaler.pk) not in doors["list"]  # forgotten


def test_every_door_agrees_with_the_ledger_after_any_history_of_grants_and_withdrawals():
    member = consenting_member()
    client = bearer_client(member)
    real_now = timezone.now()
    seen = {"revoked live": 0, "revoked forgotten": 0, "in force": 0}

    @settings(
        max_examples=40,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )
    @given(steps=STEPS)
    def agree(steps):
        note(repr(steps))
        with transaction.atomic():
            clock = real_now - timedelta(days=60)
            grant: Grant | None = None
            written: dict[str, Grant] = {}
            for number, (action, arg) in enumerate(steps):
                clock += timedelta(days=1, minutes=number)
                if action == "grant" and (grant is None or not grant.in_force(clock)):
                    until = clock + timedelta(days=arg) if arg else None
                    record(member, MEDICAL, now=clock, valid_until=until)
                    grant = Grant(clock, until)
                elif action == "withdraw" and grant is not None and grant.in_force(clock):
                    record(member, MEDICAL, kind="withdrawal", now=clock)
                    grant.ended = clock
                    if arg:
                        memory_consent_cascade(member_id=member.pk, consent_type=MEDICAL)
                elif action == "remember" and grant is not None and grant.in_force(clock):
                    result = remember(
                        member, category="medical", body=f"Medical fact {number}", now=clock
                    )
                    written[str(result.entry.pk)] = grant
                elif action == "expire":
                    consent_expire_due(now=clock)
            doors = _doors(client, member)
            assert set(doors["export"]) == set(written)
            for entry_id, entry_grant in written.items():
                shown = _moments(doors["export"][entry_id])
                assert _moments(doors["detail"][entry_id]) == shown, entry_id
                if entry_id in doors["list"]:
                    assert _moments(doors["list"][entry_id]) == shown, entry_id
                revoked = entry_grant.revoked_at(timezone.now())
                assert shown == [("medical", entry_grant.at, revoked, "settings-toggle")]
                if revoked is None:
                    seen["in force"] += 1
                else:
                    seen["revoked live" if entry_id in doors["list"] else "revoked forgotten"] += 1
            transaction.set_rollback(True)

    agree()
    # Not vacuous: every kind of record was shown by the doors.
    assert all(seen.values()), seen


def test_a_record_is_revoked_by_its_own_grants_end_never_revived_by_a_later_grant():
    # given: granted, written, withdrawn (the cascade not yet run), granted again
    member = consenting_member()
    client = bearer_client(member)
    start = timezone.now() - timedelta(days=10)
    record(member, MEDICAL, now=start)
    entry = remember(member, category="medical", body="Takes iron", now=start).entry
    record(member, MEDICAL, kind="withdrawal", now=start + timedelta(days=1))
    record(member, MEDICAL, now=start + timedelta(days=2))
    # when
    doors = _doors(client, member)
    # then every door says the first grant ended with the withdrawal
    for door in ("list", "detail", "export"):
        [consent] = doors[door][str(entry.pk)]
        assert consent["revoked_at"] is not None, door
        assert datetime.fromisoformat(consent["revoked_at"]) == start + timedelta(days=1), door
    assert iso(start) == doors["export"][str(entry.pk)][0]["granted_at"]
