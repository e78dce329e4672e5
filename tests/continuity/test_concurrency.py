"""Two devices writing the same slot at the same moment, in two threads with their own
database connections: one winner, one notice, nothing lost and nothing torn. (A retry
racing its original, over HTTP: tests/iris_site/test_idempotency_endpoints.py.)"""

import threading

import pytest
from django.db import connection

from continuity.contracts import token_parse
from continuity.models import ContinuationToken, ContinuityNotice
from continuity.services import continuation_token_write
from iris_site.audit.events import Actor
from tests.continuity.factories import audit_events, token_body
from tests.iris_site.factories import MemberFactory

ROUNDS = 3


def race(member, bodies: list[dict]) -> list[BaseException]:
    errors: list[BaseException] = []
    start = threading.Barrier(len(bodies))

    def device(body: dict) -> None:
        try:
            contract = token_parse(body)
            start.wait(timeout=10)
            continuation_token_write(
                member=member, contract=contract, consumer="tara", actor=Actor.system("test")
            )
        except BaseException as exc:  # surfaced in the main thread
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=device, args=(body,)) for body in bodies]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return errors


@pytest.mark.django_db(transaction=True)
def test_two_devices_at_the_same_second_give_one_winner_and_one_notice():
    member = MemberFactory()
    for round_ in range(ROUNDS):
        scope_key = f"session:race-{round_}"
        writes = {
            device: token_body(
                member.pk,
                scope_key=scope_key,
                device_id=device,
                anchor_ref={"surface": "tara", "anchor_id": f"{device}-anchor", "cursor": cursor},
                posture=posture,
            )
            for device, cursor, posture in (
                ("laptop-1", "00:14:32", "paused"),
                ("phone-1", "00:14:33", "listening"),
            )
        }
        # when
        assert race(member, list(writes.values())) == []
        # then: one slot holding exactly one of the two writes, whole
        token = ContinuationToken.objects.get(member=member, scope_key=scope_key)
        winner = writes[token.device_id]
        stored = (
            str(token.token_id),
            token.anchor_id,
            token.cursor,
            token.posture,
            token.idempotency_key,
        )
        assert stored == (
            winner["token_id"],
            winner["anchor_ref"]["anchor_id"],
            winner["anchor_ref"]["cursor"],
            winner["posture"],
            winner["idempotency_key"],
        )
        assert token.revision == 2
        # the loser is told, and its own place is kept in the notice
        [loser_device] = set(writes) - {token.device_id}
        loser = writes[loser_device]
        [notice] = ContinuityNotice.objects.filter(token=token)
        assert notice.device_id == loser_device and notice.winning_device_id == token.device_id
        assert str(notice.superseded_token_id) == loser["token_id"]
        assert notice.superseded_cursor == loser["anchor_ref"]["cursor"]
    # every write answered and audited
    written = audit_events("continuity.token.written", member)
    assert (
        sorted(e.payload["outcome"] for e in written)
        == ["created"] * ROUNDS + ["replaced"] * ROUNDS
    )
    assert len(audit_events("continuity.notice.raised", member)) == ROUNDS
