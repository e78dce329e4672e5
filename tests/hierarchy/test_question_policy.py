"""Which open questions a surface may ask (`hierarchy.question_policy`): pure, no
database. Never looser than the read gate on the memory asked about; the proposal is
judged as the entry it would become, so its draft state alone never hides a question,
while every other check still applies to it."""

import dataclasses
from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from hierarchy.question_policy import question_reason
from iris_site.enums import Consumer
from memory.access.capabilities import capabilities_for
from memory.access.gate import (
    ContentItem,
    ContentKind,
    MemberState,
    Reader,
    ReaderKind,
    ScopeKey,
    decide,
)
from memory.enums import Lifecycle, RecallContext

NOW = datetime(2026, 12, 1, 12, tzinfo=UTC)
MEMBER = "7f0c1a52-0000-4000-8000-000000000001"
CATEGORIES = ("preference", "fact", "medical", "mental_health", "financial")
BASE = ("data_processing", "data_storage", "sensitive_data")


def _subset(values):
    return st.frozensets(st.sampled_from(values))


readers = st.builds(
    lambda consumer, context: Reader(
        kind=ReaderKind.SERVICE,
        member_id=MEMBER,
        capabilities=capabilities_for(consumer),
        context=context,
    ),
    st.sampled_from(Consumer.values),
    st.sampled_from(RecallContext.values),
)
states = st.builds(
    lambda types, categories, clear, off: MemberState(
        member_id=MEMBER,
        consent_types=types | {f"category:{c}" for c in categories},
        categories=categories,
        clear_pending=clear,
        off_the_record=off,
    ),
    _subset(BASE),
    _subset(CATEGORIES),
    st.booleans(),
    st.booleans(),
)


def entries(lifecycles=tuple(Lifecycle.values)):
    return st.builds(
        lambda i, kind, category, lifecycle, held: ContentItem(
            kind=ContentKind.ENTRY,
            item_id=f"e-{i}",
            member_id=MEMBER,
            scope=ScopeKey(
                kind=kind, user_id=MEMBER, session_id="s-1" if kind == "session" else None
            ),
            category=category,
            lifecycle=lifecycle,
            held=held,
        ),
        st.integers(0, 99),
        st.sampled_from(("profile", "session")),
        st.sampled_from(CATEGORIES),
        st.sampled_from(lifecycles),
        st.booleans(),
    )


@given(entries(), readers, states)
def test_without_a_proposal_it_is_the_gate_on_the_memory(entry, reader, state):
    assert question_reason(entry, None, reader, state, NOW) == decide(entry, reader, state, NOW)


@given(entries(), entries(), readers, states)
def test_never_looser_than_the_gate_on_the_memory_or_the_proposal(entry, proposal, reader, state):
    reason = question_reason(entry, proposal, reader, state, NOW)
    as_stored = dataclasses.replace(proposal, lifecycle=Lifecycle.ACTIVE)
    if decide(entry, reader, state, NOW) is not None or decide(as_stored, reader, state, NOW):
        assert reason is not None


@given(entries(), entries(lifecycles=(Lifecycle.DRAFT,)), readers, states)
def test_a_draft_proposal_alone_never_hides_the_question(entry, proposal, reader, state):
    as_stored = dataclasses.replace(proposal, lifecycle=Lifecycle.ACTIVE)
    assert question_reason(entry, proposal, reader, state, NOW) == question_reason(
        entry, as_stored, reader, state, NOW
    )


def test_a_sensitive_question_waits_for_its_context():
    def item(lifecycle):
        scope = ScopeKey(kind="profile", user_id=MEMBER)
        return ContentItem(
            kind=ContentKind.ENTRY,
            item_id=f"e-{lifecycle}",
            member_id=MEMBER,
            scope=scope,
            category="medical",
            lifecycle=lifecycle,
        )

    state = MemberState(
        member_id=MEMBER,
        consent_types=frozenset({*BASE, "category:medical"}),
        categories=frozenset({"medical"}),
    )
    caps = capabilities_for(Consumer.ASSISTANT)
    general = Reader(kind=ReaderKind.SERVICE, member_id=MEMBER, capabilities=caps)
    health = dataclasses.replace(general, context=RecallContext.HEALTH)
    entry, proposal = item(Lifecycle.ACTIVE), item(Lifecycle.DRAFT)
    assert (
        question_reason(entry, proposal, general, state, NOW)
        == "sensitive-category-outside-relevant-context"
    )
    assert question_reason(entry, proposal, health, state, NOW) is None
