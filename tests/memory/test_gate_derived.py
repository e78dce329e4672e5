"""Content derived from long-term entries (`memory.access.gate.ContentItem.derived_from`), as a
pure decision: a short-term copy of an entry is withheld while the entry is, for its
suppression, lifecycle or hold, under the entry's reason; otherwise it is decided as if
it had no sources."""

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memory.access.capabilities import capabilities_for
from memory.access.gate import (
    CONSUMER_NOT_ALLOWED,
    DELETION_HOLD,
    ContentItem,
    ContentKind,
    MemberState,
    Reader,
    ReaderKind,
    ScopeKey,
    Source,
    Suppression,
    decide,
    lifecycle_key,
    standing_reason,
)
from memory.enums import Lifecycle, MemoryCategory, ScopeKind, SuppressionReason

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
M = "member-1"
READER = Reader(kind=ReaderKind.SERVICE, member_id=M, capabilities=capabilities_for("assistant"))
STATE = MemberState(
    member_id=M,
    consent_types=frozenset({"data_processing", "data_storage"}),
    categories=frozenset(),
)
PAUSE = Suppression(SuppressionReason.USER_PAUSE)


def row(*sources: Source, **fields) -> ContentItem:
    """A short-term row of the member's session, derived from `sources`."""
    scope = ScopeKey(kind=ScopeKind.SESSION, user_id=M, session_id="s-1")
    defaults = {"kind": ContentKind.STM, "item_id": "r1", "member_id": M, "scope": scope}
    return ContentItem(**{**defaults, **fields}, derived_from=sources)


def source(entry_id: str = "e1", **fields) -> Source:
    return Source(entry_id=entry_id, **fields)


def test_a_row_derived_from_active_entries_is_decided_as_a_row_of_its_own():
    assert decide(row(source("e1"), source("e2")), READER, STATE, NOW) is None


@pytest.mark.parametrize(
    ("entry", "reason"),
    [
        (source(lifecycle=Lifecycle.PAUSED, suppression=PAUSE), SuppressionReason.USER_PAUSE),
        (source(lifecycle=Lifecycle.DRAFT), lifecycle_key(Lifecycle.DRAFT)),
        (source(lifecycle=Lifecycle.TOMBSTONED), lifecycle_key(Lifecycle.TOMBSTONED)),
        (source(lifecycle=Lifecycle.SUPERSEDED), lifecycle_key(Lifecycle.SUPERSEDED)),
        (source(suppression=Suppression(SuppressionReason.CRISIS_FRAME)), "crisis-frame"),
        (source(held=True), DELETION_HOLD),
    ],
)
def test_a_row_is_withheld_under_the_reason_its_entry_is(entry, reason):
    assert decide(row(entry), READER, STATE, NOW) == reason
    assert decide(row(source("e0"), entry), READER, STATE, NOW) == reason


def test_a_timed_pause_of_the_entry_quiets_the_row_until_it_ends():
    paused = source(
        lifecycle=Lifecycle.PAUSED,
        suppression=Suppression(SuppressionReason.USER_PAUSE, ends_at=NOW + timedelta(hours=1)),
    )
    assert decide(row(paused), READER, STATE, NOW) == SuppressionReason.USER_PAUSE
    assert decide(row(paused), READER, STATE, NOW + timedelta(hours=2)) is None


def test_the_rows_own_state_and_the_earlier_checks_come_first():
    paused = source(lifecycle=Lifecycle.PAUSED, suppression=PAUSE)
    # The row's own hold before its entry's pause; the first withheld entry names it.
    assert decide(row(paused, held=True), READER, STATE, NOW) == DELETION_HOLD
    draft = source("e2", lifecycle=Lifecycle.DRAFT)
    assert decide(row(draft, paused), READER, STATE, NOW) == lifecycle_key(Lifecycle.DRAFT)
    # A kind the reader may not read is withheld as such, whatever its entries.
    workbench = ScopeKey(kind=ScopeKind.OPERATOR_COPILOT, user_id=M, operator_id="o1")
    assert decide(row(paused, scope=workbench), READER, STATE, NOW) == CONSUMER_NOT_ALLOWED


def test_the_member_reads_their_own_copy_whatever_the_entry():
    member = Reader(kind=ReaderKind.MEMBER, member_id=M)
    assert decide(row(source(held=True)), member, STATE, NOW) is None


SOURCES = st.builds(
    Source,
    entry_id=st.sampled_from(["e1", "e2", "e3"]),
    lifecycle=st.sampled_from(Lifecycle.values),
    suppression=st.one_of(
        st.none(),
        st.builds(
            Suppression,
            reason=st.sampled_from(SuppressionReason.values),
            ends_at=st.one_of(
                st.none(), st.sampled_from([NOW - timedelta(hours=1), NOW + timedelta(hours=1)])
            ),
        ),
    ),
    held=st.booleans(),
)


@given(
    sources=st.lists(SOURCES, max_size=4),
    category=st.sampled_from([MemoryCategory.PREFERENCE, MemoryCategory.MEDICAL]),
    held=st.booleans(),
    consents=st.sets(st.sampled_from(["data_processing", "category:medical"])),
)
def test_sources_only_ever_withhold_and_then_under_the_first_withheld_entrys_reason(
    sources, category, held, consents
):
    """With sources, a row is visible exactly when it is without them and every source
    stands; when only the sources withhold it, the reason is the first one's."""
    state = replace(
        STATE,
        consent_types=frozenset(consents),
        categories=frozenset({"medical"} & {c.removeprefix("category:") for c in consents}),
    )
    alone = decide(row(category=category, held=held), READER, state, NOW)
    derived = decide(row(*sources, category=category, held=held), READER, state, NOW)
    standing = [r for r in (standing_reason(s, NOW) for s in sources) if r is not None]
    assert (derived is None) == (alone is None and not standing)
    if alone is None and standing:
        assert derived == standing[0]
    if not sources:
        assert derived == alone
