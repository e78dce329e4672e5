"""A routine review shows what Iris uses, not the member's history (issue 42, item 7).

Over real HTTP (`live_server`): support routes a request down `routine-review`, grants it
and reads the snapshot; the member's paused and superseded memories are not in it, nor in
what the grant says was seen. The member's own data-rights request (`dsar-fulfillment`)
still shows them: its reason needs the history (`inspection.policy.HISTORY_PATHS`)."""

import time
from datetime import timedelta

import pytest
from django.utils import timezone

from inspection import policy
from inspection.enums import InspectionState
from iris_site.audit.events import Actor
from iris_site.services import token_issue
from memory.enums import Lifecycle
from memory.pauses import memory_pause
from tests.conftest import http_request
from tests.inspection.factories import JUSTIFICATION, granted, open_dsar
from tests.iris_site.factories import OperatorFactory
from tests.memory.factories import consenting_member, remember

live = pytest.mark.django_db(transaction=True)
BASE = "/api/v1/operator/inspections/"


def history_member():
    """A member with one memory in use, one paused, one superseded by a newer wording and
    one whose timed pause has ended (in use again), all in the profile."""
    member = consenting_member()
    in_use = remember(member, subject="coffee", body="I take my coffee black").entry
    paused = remember(member, subject="train", body="I take the night train on Fridays").entry
    memory_pause(entry=paused, actor=Actor.of(member))
    old = remember(member, subject="city", body="I live in Leeds").entry
    newer = remember(member, subject="city", body="I live in York").entry
    ended = remember(member, subject="tea", body="I drink green tea").entry
    memory_pause(entry=ended, actor=Actor.of(member), ends_at=timezone.now() + timedelta(seconds=1))
    time.sleep(1.1)  # the timed pause ends (nothing resumed it yet)
    old.refresh_from_db()
    assert old.lifecycle == Lifecycle.SUPERSEDED
    return member, {"in_use": in_use, "paused": paused, "old": old, "newer": newer, "ended": ended}


def routine_review_over_http(live_server, member):
    support = OperatorFactory(role="support")
    _, token = token_issue(owner=support)
    base = live_server.url + BASE
    opened = http_request(
        base,
        method="POST",
        token=token,
        body={
            "target_user_id": str(member.pk),
            "scope": {"kind": "profile", "user_id": str(member.pk)},
            "justification": JUSTIFICATION,
            "signed_incident_ref": None,
        },
    )
    assert opened.status == 201, opened.body
    transition = f"{base}{opened.body['id']}/transition/"
    routed = http_request(transition, method="POST", token=token, body={"to": "routine-review"})
    assert routed.status == 200, routed.body
    grant = http_request(transition, method="POST", token=token, body={"to": "granted"})
    assert grant.status == 200 and grant.body["state"] == "granted", grant.body
    snapshot = http_request(f"{base}{opened.body['id']}/snapshot/", token=token)
    assert snapshot.status == 200, snapshot.body
    return grant.body, snapshot.body


def ids(*entries) -> set[str]:
    return {str(e.pk) for e in entries}


@live
def test_a_routine_review_snapshot_shows_active_entries_only(live_server):
    # given a member with paused and superseded memories beside the ones in use
    member, e = history_member()
    # when support reviews the profile
    grant, snapshot = routine_review_over_http(live_server, member)
    # then only what Iris uses was pinned and is shown
    assert set(grant["seen_entry_ids"]) == ids(e["in_use"], e["newer"], e["ended"])
    assert {row["entry_id"] for row in snapshot["entries"]} == ids(
        e["in_use"], e["newer"], e["ended"]
    )
    shown = " ".join(row["body"] for row in snapshot["entries"])
    assert "night train" not in shown and "Leeds" not in shown


@live
def test_the_members_data_rights_request_still_shows_the_history(live_server):
    # given the same member and an open data-rights request of theirs
    member, e = history_member()
    legal = OperatorFactory(role="legal")
    inspection = granted(
        legal,
        member,
        InspectionState.DSAR_FULFILLMENT,
        dsar_request_id=open_dsar(member).pk,
    )
    _, token = token_issue(owner=legal)
    # when legal reads the snapshot
    snapshot = http_request(f"{live_server.url}{BASE}{inspection.pk}/snapshot/", token=token)
    # then every live memory is there, paused and superseded ones included
    assert snapshot.status == 200, snapshot.body
    assert {row["entry_id"] for row in snapshot.body["entries"]} == ids(*e.values())


@live
def test_a_routine_review_granted_before_the_rule_withholds_what_it_pinned_out_of_use(
    live_server, monkeypatch
):
    # given a routine review whose grant pinned a paused memory (as grants did before)
    member, e = history_member()
    support = OperatorFactory(role="support")
    with monkeypatch.context() as patched:
        patched.setattr(policy, "snapshot_shows", lambda **_: True)
        inspection = granted(support, member)
    _, token = token_issue(owner=support)
    # when support reads it
    snapshot = http_request(f"{live_server.url}{BASE}{inspection.pk}/snapshot/", token=token)
    # then the paused and superseded ones are withheld whole
    assert snapshot.status == 200, snapshot.body
    assert {row["entry_id"] for row in snapshot.body["entries"]} == ids(
        e["in_use"], e["newer"], e["ended"]
    )


# --- The rule itself (pure: no database) --------------------------------------------------


@pytest.mark.parametrize(
    ("content", "routine"),
    [
        ({"lifecycle": "active", "suppression": None}, True),
        ({"lifecycle": "paused", "suppression": {"reason": "user-pause", "ends_at": None}}, False),
        ({"lifecycle": "superseded"}, False),
        ({"lifecycle": "draft"}, False),
        ({"lifecycle": "active", "suppression": {"reason": "tenant-quarantine"}}, False),
        (
            {
                "lifecycle": "paused",
                "suppression": {"reason": "user-pause", "ends_at": "2026-01-01T00:00:00Z"},
            },
            True,  # a timed pause that has ended: in use, as the read gate sees it
        ),
        (
            {
                "lifecycle": "paused",
                "suppression": {"reason": "user-pause", "ends_at": "2030-01-01T00:00:00Z"},
            },
            False,
        ),
    ],
)
def test_which_entries_each_path_shows(content, routine):
    now = timezone.now()
    assert policy.snapshot_shows(path="routine-review", content=content, now=now) is routine
    for path in policy.HISTORY_PATHS:
        assert policy.snapshot_shows(path=path, content=content, now=now)
    assert {"dsar-fulfillment", "incident-escalation"} == policy.HISTORY_PATHS
