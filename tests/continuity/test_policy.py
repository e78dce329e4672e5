"""Continuity's pure rules without a database: last-writer-wins between devices, the read
gate's token rule (who may read a sensitive token), surface rights, fingerprints and
device digests."""

import itertools
import uuid
from datetime import timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from continuity.enums import Surface, WriteOutcome
from continuity.policy import (
    CONFLICT_WINDOW,
    SlotHead,
    device_ref,
    may_write_surface,
    readable_surfaces,
    resolve_write,
    resumes_mid_segment,
)
from iris_site.enums import Consumer
from memory.access.capabilities import capabilities_for
from memory.access.gate import ContentItem, ContentKind, MemberState, Reader, ReaderKind, decide
from tests.continuity.factories import T0

LAPTOP, PHONE = "laptop-1", "phone-1"


def test_the_first_write_creates_the_slot():
    assert resolve_write(None, device_id=LAPTOP, now=T0) == (
        resolve_write(None, device_id=PHONE, now=T0)
    )
    assert resolve_write(None, device_id=LAPTOP, now=T0).outcome == WriteOutcome.CREATED


def test_the_same_device_simply_moves_on():
    head = SlotHead(LAPTOP, T0)
    result = resolve_write(head, device_id=LAPTOP, now=T0 + timedelta(seconds=1))
    assert result.outcome == WriteOutcome.REPLACED and result.notify_device_id is None


def test_another_device_within_the_window_wins_and_the_loser_is_told():
    head = SlotHead(LAPTOP, T0)
    result = resolve_write(head, device_id=PHONE, now=T0 + timedelta(seconds=1))
    assert result.outcome == WriteOutcome.REPLACED and result.notify_device_id == LAPTOP


def test_the_window_boundary_is_still_a_race_and_beyond_it_a_hand_off():
    head = SlotHead(LAPTOP, T0)
    at_edge = resolve_write(head, device_id=PHONE, now=T0 + CONFLICT_WINDOW)
    beyond = resolve_write(head, device_id=PHONE, now=T0 + CONFLICT_WINDOW + timedelta(0, 0, 1))
    assert at_edge.notify_device_id == LAPTOP
    assert beyond.outcome == WriteOutcome.REPLACED and beyond.notify_device_id is None


def test_an_equal_server_timestamp_goes_to_the_later_serialized_write():
    result = resolve_write(SlotHead(LAPTOP, T0), device_id=PHONE, now=T0)
    assert result.outcome == WriteOutcome.REPLACED and result.notify_device_id == LAPTOP


def test_an_older_server_timestamp_loses_and_its_own_device_is_told():
    # clock skew between app servers: the stored write is more recent by server time
    head = SlotHead(LAPTOP, T0 + timedelta(seconds=5))
    result = resolve_write(head, device_id=PHONE, now=T0)
    assert result.outcome == WriteOutcome.SUPERSEDED and not result.applied
    assert result.notify_device_id == PHONE


@given(
    st.lists(
        st.tuples(st.sampled_from(["a", "b", "c"]), st.integers(min_value=0, max_value=400)),
        min_size=1,
        max_size=30,
    )
)
def test_whatever_the_arrival_order_the_most_recent_server_time_wins(writes):
    head, winner, notices = None, None, []
    for index, (device, seconds) in enumerate(writes):
        now = T0 + timedelta(seconds=seconds)
        result = resolve_write(head, device_id=device, now=now)
        if result.applied:
            losing_device = head.device_id if head else None
            head, winner = SlotHead(device, now), index
        else:
            losing_device = device
        if result.notify_device_id is not None:
            # the notice always goes to the loser, never to the device that now holds the slot
            assert result.notify_device_id == losing_device != head.device_id
            notices.append(result.notify_device_id)
    expected = max(range(len(writes)), key=lambda i: (writes[i][1], i))
    assert winner == expected
    assert len(notices) <= len(writes) - 1


MEMBER = "5d1f7a2c-0b3e-4c6d-8e9f-1a2b3c4d5e6f"
WRITER, OTHER = "client-writer", "client-other"


def token_readable(*, sensitive, writer, device, names, reader_client, reader_device, grant):
    item = ContentItem(
        kind=ContentKind.TOKEN,
        item_id="t-1",
        member_id=MEMBER,
        sensitive=sensitive,
        writer_client_id=writer,
        device_id=device,
        cross_device_consent_id=names,
    )
    reader = Reader(
        kind=ReaderKind.SERVICE,
        member_id=MEMBER,
        capabilities=capabilities_for("shell"),
        client_id=reader_client,
        device_id=reader_device,
    )
    state = MemberState(
        member_id=MEMBER,
        consent_types=frozenset(),
        categories=frozenset(),
        cross_device_grant_id=grant,
    )
    return decide(item, reader, state, T0) is None


def test_the_token_rule_truth_table():
    grant = str(uuid.uuid4())
    for sensitive, same_client, same_device, names_grant, grant_in_force in itertools.product(
        [False, True], repeat=5
    ):
        readable = token_readable(
            sensitive=sensitive,
            writer=WRITER,
            device=PHONE,
            names=grant if names_grant else str(uuid.uuid4()),
            reader_client=WRITER if same_client else OTHER,
            reader_device=PHONE if same_device else LAPTOP,
            grant=grant if grant_in_force else None,
        )
        own_device = same_client and same_device
        assert readable == (not sensitive or own_device or (names_grant and grant_in_force))


def test_the_device_id_alone_never_makes_a_reader_the_writing_device():
    common = {"sensitive": True, "device": PHONE, "names": None, "grant": None}
    # another client claiming the device, a token no client is recorded for, no device
    assert not token_readable(writer=WRITER, reader_client=OTHER, reader_device=PHONE, **common)
    assert not token_readable(writer=None, reader_client=None, reader_device=PHONE, **common)
    assert not token_readable(writer=WRITER, reader_client=WRITER, reader_device=None, **common)
    assert token_readable(writer=WRITER, reader_client=WRITER, reader_device=PHONE, **common)


@pytest.mark.parametrize("consumer", Consumer.values)
def test_a_surface_writes_only_its_own_tokens(consumer):
    writable = {s for s in Surface.values if may_write_surface(consumer, s)}
    assert writable == ({consumer} if consumer in Surface.values else set())


def test_the_shell_reads_every_surface_others_their_own_or_nothing():
    assert readable_surfaces("shell") == frozenset(Surface.values)
    assert readable_surfaces("tara") == {"tara"}
    assert readable_surfaces("assistant") == frozenset()


def test_mid_segment_resume_is_for_audio_voice_and_scenes():
    assert {s for s in Surface.values if resumes_mid_segment(s)} == {
        "tara",
        "psyche",
        "living-scene",
    }


def test_device_refs_are_keyed_member_bound_and_audit_safe():
    member = uuid.uuid4()
    ref = device_ref(secret=b"s", member_id=member, device_id="Ada's iPhone")
    assert len(ref) == 32 and set(ref) <= set("0123456789abcdef")
    assert ref != device_ref(secret=b"t", member_id=member, device_id="Ada's iPhone")
    assert ref != device_ref(secret=b"s", member_id=uuid.uuid4(), device_id="Ada's iPhone")
