"""The read gate, `memory.access.gate.decide`, as a pure function: every reason in the order of
its checks, and properties over random items, readers and member states."""

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from iris_site.enums import Consumer
from memory.access.capabilities import capabilities_for
from memory.access.gate import (
    ContentItem,
    ContentKind,
    MemberState,
    Reader,
    ReaderKind,
    ScopeKey,
    Source,
    Suppression,
    auto_forget_at,
    decide,
    kind_reason,
)
from memory.enums import (
    SENSITIVE_CATEGORIES,
    Lifecycle,
    MemoryCategory,
    RecallContext,
    ScopeKind,
    SuppressionReason,
)
from memory.recall.pipeline import ENVELOPE_REASONS

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
M, OTHER = "member-1", "member-2"
BASE = frozenset({"data_processing", "data_storage"})
K = ScopeKind


def key(kind: str = K.PROFILE, user: str = M, **ids: str) -> ScopeKey:
    needed = {
        K.SESSION: {"session_id": "s1"},
        K.SCENE: {"session_id": "s1", "scene_id": "sc1", "room_id": "r1"},
        K.POSE: {"session_id": "s1", "scene_id": "sc1", "pose_id": "p1", "avatar_id": "a1"},
        K.NOTEBOOK: {"notebook_id": "n1"},
        K.OPERATOR_COPILOT: {"operator_id": "o1"},
        K.TENANT: {"tenant_id": "t1"},
    }.get(kind, {})
    return ScopeKey(kind=kind, user_id=user, **{**needed, **ids})


def service(consumer: str = Consumer.ASSISTANT, **fields) -> Reader:
    defaults = {"scope": key(K.CRISIS), "capabilities": capabilities_for(consumer)}
    return Reader(kind=ReaderKind.SERVICE, member_id=M, **{**defaults, **fields})


def state(**fields) -> MemberState:
    defaults = {"consent_types": BASE, "categories": frozenset()}
    return MemberState(member_id=M, **{**defaults, **fields})


def entry(**fields) -> ContentItem:
    return ContentItem(**{"kind": ContentKind.ENTRY, "item_id": "e1", "member_id": M, **fields})


# --- every reason, in order ------------------------------------------------------------

# One item, reader and state that fail every check of a service read; each step repairs
# the check that failed, and the next check in the docstring's order is the reason.
WRONG = (
    entry(
        tenant_id="t-other",
        member_id=OTHER,
        scope=key(K.OPERATOR_COPILOT, user=OTHER),
        category=MemoryCategory.MEDICAL,
        lifecycle=Lifecycle.PAUSED,
        suppression=Suppression(SuppressionReason.USER_PAUSE),
        held=True,
    ),
    # shell: not on the pose blueprint, may not claim health
    service(Consumer.SHELL, context=RecallContext.HEALTH, crisis_frame=True),
    state(consent_types=frozenset(), clear_pending=True, off_the_record=True),
)
REPAIRS = [
    ("tenant-mismatch", "item", {"tenant_id": None}),
    ("user-mismatch", "item", {"member_id": M, "scope": key(K.OPERATOR_COPILOT)}),
    ("scope-mismatch", "item", {"scope": key(K.POSE)}),  # a crisis recall reaches pose
    ("consumer-not-allowed-for-scope", "item", {"scope": key(K.PROFILE)}),
    ("full-clear-pending", "state", {"clear_pending": False}),
    ("off-the-record", "state", {"off_the_record": False}),
    ("scope-suppressed", "state", {"consent_types": BASE}),
    ("crisis-frame", "reader", {"crisis_frame": False}),
    ("user-pause", "item", {"suppression": None}),
    ("lifecycle-paused", "item", {"lifecycle": Lifecycle.ACTIVE}),
    ("deletion-hold", "item", {"held": False}),
    ("sensitive-category-without-consent", "state", {"categories": frozenset({"medical"})}),
    # the claimed context counts only when the reader may claim it: tara may
    (
        "sensitive-category-outside-relevant-context",
        "reader",
        {"capabilities": capabilities_for(Consumer.TARA)},
    ),
]


def test_a_service_read_fails_at_the_first_check_in_the_documented_order():
    item, reader, member = WRONG
    for reason, part, repair in REPAIRS:
        assert decide(item, reader, member, NOW) == reason
        if part == "item":
            item = replace(item, **repair)
        elif part == "reader":
            reader = replace(reader, **repair)
        else:
            member = replace(member, **repair)
    assert decide(item, reader, member, NOW) is None


def test_the_kind_level_checks_are_kind_reason_and_decide_asks_it():
    item, reader, member = WRONG
    item = replace(item, tenant_id=None, member_id=M, scope=key(K.POSE))
    for expected, repair in [
        ("consumer-not-allowed-for-scope", {}),
        ("full-clear-pending", {"scope": key(K.PROFILE)}),
    ]:
        item = replace(item, **repair)
        assert kind_reason(item.kind, item.scope.kind, reader, member) == expected
        assert decide(item, reader, member, NOW) == expected
    ready = replace(member, clear_pending=False, off_the_record=False, consent_types=BASE)
    assert kind_reason(ContentKind.ENTRY, K.PROFILE, reader, ready) is None


@pytest.mark.parametrize(
    ("kind", "consents", "reason"),
    [
        (K.PROFILE, {"data_processing"}, "scope-suppressed"),
        (K.NOTEBOOK, {"data_storage"}, "scope-suppressed"),
        (K.POSE, BASE, "scope-suppressed"),  # pose also needs sensitive_data
        (K.POSE, BASE | {"sensitive_data"}, None),
        (K.CRISIS, set(), None),  # vital interests: no consent asked
    ],
)
def test_each_kind_needs_its_blueprints_base_consents(kind, consents, reason):
    reader = service(Consumer.ASSISTANT, scope=key(K.POSE) if kind == K.POSE else key(K.CRISIS))
    item = entry(scope=key(kind))
    assert decide(item, reader, state(consent_types=frozenset(consents)), NOW) == reason


@pytest.mark.parametrize(
    ("ends_at", "reason"),
    [
        (None, "user-pause"),
        (NOW + timedelta(seconds=1), "user-pause"),
        (NOW, None),
        (NOW - timedelta(days=3), None),
    ],
)
def test_a_timed_pause_ends_at_its_end(ends_at, reason):
    item = entry(lifecycle=Lifecycle.PAUSED, suppression=Suppression("user-pause", ends_at))
    assert decide(item, service(), state(), NOW) == reason


def test_a_paused_entry_without_an_end_stays_paused():
    assert decide(entry(lifecycle=Lifecycle.PAUSED), service(), state(), NOW) == "lifecycle-paused"


def test_short_term_rows_need_processing_consent_and_tokens_none():
    stm = ContentItem(kind=ContentKind.STM, item_id="r1", member_id=M)
    token = ContentItem(kind=ContentKind.TOKEN, item_id="c1", member_id=M)
    without = state(consent_types=frozenset({"data_storage"}))
    assert decide(stm, service(scope=None), without, NOW) == "scope-suppressed"
    assert decide(stm, service(scope=None), state(), NOW) is None
    # a token carries references only; a pending clear does not hide where one left off
    assert decide(token, service(scope=None), state(consent_types=frozenset()), NOW) is None
    assert decide(token, service(scope=None), state(clear_pending=True), NOW) is None


def test_a_sensitive_token_stays_on_the_device_that_wrote_it_unless_granted():
    token = ContentItem(
        kind=ContentKind.TOKEN,
        item_id="c1",
        member_id=M,
        sensitive=True,
        writer_client_id="client-1",
        device_id="phone",
        cross_device_consent_id="grant-1",
    )
    same = service(scope=None, client_id="client-1", device_id="phone")
    assert decide(token, same, state(), NOW) is None
    for other in (replace(same, device_id="laptop"), replace(same, client_id="client-2")):
        assert decide(token, other, state(), NOW) == "cross-device-consent-required"
        assert decide(token, other, state(cross_device_grant_id="grant-1"), NOW) is None
        assert decide(token, other, state(cross_device_grant_id="grant-2"), NOW) == (
            "cross-device-consent-required"
        )


def test_a_sensitive_multi_actor_interaction_needs_its_consent_and_context():
    item = entry(actor_sensitive=True)
    reader = service(context=RecallContext.RELATIONSHIP)
    assert decide(item, reader, state(), NOW) == "sensitive-category-without-consent"
    assert decide(item, reader, state(multi_actor_consented=True), NOW) is None
    general = service(context=RecallContext.GENERAL)
    assert decide(item, general, state(multi_actor_consented=True), NOW) == (
        "sensitive-category-outside-relevant-context"
    )


def test_a_member_sees_their_own_and_an_operator_only_the_granted():
    member = Reader(kind=ReaderKind.MEMBER, member_id=M)
    assert decide(entry(held=True, lifecycle=Lifecycle.DRAFT), member, state(), NOW) is None
    assert decide(entry(member_id=OTHER), member, state(), NOW) == "user-mismatch"
    operator = Reader(kind=ReaderKind.OPERATOR, member_id=M, granted_ids=frozenset({"e1"}))
    assert decide(entry(), operator, state(), NOW) is None
    assert decide(entry(item_id="e2"), operator, state(), NOW) == "no-granted-inspection"
    assert decide(entry(member_id=OTHER), operator, state(), NOW) == "user-mismatch"
    assert decide(entry(), Reader(kind="stranger", member_id=M), state(), NOW) == "user-mismatch"


def test_a_state_of_another_member_withholds_everything():
    assert decide(entry(), service(), replace(state(), member_id=OTHER), NOW) == "user-mismatch"


def test_a_service_reader_must_carry_capabilities():
    with pytest.raises(ValueError, match="capabilities"):
        Reader(kind=ReaderKind.SERVICE, member_id=M)


# --- properties ------------------------------------------------------------------------

ALL_CONSENTS = sorted(BASE | {"sensitive_data"})
CATEGORIES = [
    MemoryCategory.PREFERENCE,
    MemoryCategory.FACT,
    MemoryCategory.SAFETY,
    *sorted(SENSITIVE_CATEGORIES)[::4],
]


# The identifiers a drawn scope varies, per kind (the rest keep `key`'s defaults).
VARIED = {
    K.SESSION: ("session_id",),
    K.SCENE: ("session_id", "scene_id"),
    K.POSE: ("session_id", "scene_id"),
    K.NOTEBOOK: ("notebook_id",),
    K.TENANT: ("tenant_id",),
}
CHOICES = {
    "session_id": ["s1", "s2"],
    "scene_id": ["sc1", "sc2"],
    "notebook_id": ["n1", "n2"],
    "tenant_id": ["t1", "t2"],
}


@st.composite
def scope_keys(draw, user: str = M) -> ScopeKey:
    kind = draw(st.sampled_from([*K.values, K.PROFILE, K.PROFILE]))
    ids = {name: draw(st.sampled_from(CHOICES[name])) for name in VARIED.get(kind, ())}
    return key(kind, user=user, **ids)


# When an item was last asserted: around the auto-forget choices the states draw.
ASSERTED = [NOW - timedelta(days=d, seconds=s) for d in (0, 30, 91, 365) for s in (-1, 1)]
AUTO_FORGET_KINDS = [K.PROFILE, K.SESSION, K.NOTEBOOK]


@st.composite
def sources(draw) -> Source:
    return Source(
        entry_id=draw(st.sampled_from(["e1", "e3"])),
        lifecycle=draw(st.sampled_from([Lifecycle.ACTIVE] * 4 + list(Lifecycle.values))),
        held=draw(st.sampled_from([False] * 4 + [True])),
        scope_kind=draw(st.sampled_from([K.PROFILE, K.SESSION, K.TENANT])),
        asserted_at=draw(st.none() | st.sampled_from(ASSERTED)),
    )


def auto_forget_choices():
    return st.lists(
        st.tuples(st.sampled_from(AUTO_FORGET_KINDS), st.sampled_from([30, 91, 365])),
        max_size=3,
        unique_by=lambda choice: choice[0],
    ).map(lambda choices: tuple(sorted(choices)))


@st.composite
def items(draw) -> ContentItem:
    member = draw(st.sampled_from([M, M, M, OTHER]))
    kind = draw(st.sampled_from([ContentKind.ENTRY] * 4 + [ContentKind.STM, ContentKind.TOKEN]))
    scope = draw(scope_keys(member)) if kind == ContentKind.ENTRY else None
    return ContentItem(
        kind=kind,
        item_id=draw(st.sampled_from(["e1", "e2"])),
        member_id=member,
        scope=scope,
        tenant_id=draw(st.sampled_from([None, None, "t1", "t2"])),
        category=draw(st.sampled_from(CATEGORIES)),
        lifecycle=draw(st.sampled_from([Lifecycle.ACTIVE] * 4 + list(Lifecycle.values))),
        suppression=draw(
            st.none()
            | st.builds(
                Suppression,
                st.sampled_from(SuppressionReason.values),
                st.sampled_from([None, NOW - timedelta(days=1), NOW + timedelta(days=1)]),
            )
        ),
        held=draw(st.sampled_from([False] * 4 + [True])),
        actor_sensitive=draw(st.sampled_from([False] * 3 + [True])),
        sensitive=draw(st.booleans()),
        writer_client_id=draw(st.sampled_from([None, "client-1", "client-2"])),
        device_id=draw(st.sampled_from(["", "phone"])),
        cross_device_consent_id=draw(st.sampled_from([None, "grant-1"])),
        asserted_at=draw(st.none() | st.sampled_from(ASSERTED)),
        derived_from=draw(st.lists(sources(), max_size=2).map(tuple))
        if kind == ContentKind.STM
        else (),
    )


@st.composite
def readers(draw) -> Reader:
    return Reader(
        kind=ReaderKind.SERVICE,
        member_id=M,
        capabilities=capabilities_for(draw(st.sampled_from(Consumer.values))),
        client_id=draw(st.sampled_from(["client-1", "client-2"])),
        context=draw(st.sampled_from(RecallContext.values)),
        scope=draw(st.none() | scope_keys()),
        tenant_id=draw(st.sampled_from([None, "t1"])),
        crisis_frame=draw(st.sampled_from([False] * 4 + [True])),
        safety_critical_context=draw(st.booleans()),
        device_id=draw(st.sampled_from([None, "phone"])),
    )


@st.composite
def states(draw) -> MemberState:
    return MemberState(
        member_id=M,
        consent_types=draw(st.frozensets(st.sampled_from(ALL_CONSENTS))),
        categories=draw(st.frozensets(st.sampled_from(sorted(SENSITIVE_CATEGORIES)))),
        multi_actor_consented=draw(st.booleans()),
        clear_pending=draw(st.sampled_from([False] * 5 + [True])),
        off_the_record=draw(st.sampled_from([False] * 5 + [True])),
        cross_device_grant_id=draw(st.sampled_from([None, "grant-1"])),
        stopped_use=draw(st.sampled_from([False] * 5 + [True])),
        paused_consumers=draw(
            st.frozensets(st.sampled_from(Consumer.values), max_size=2) | st.just(frozenset())
        ),
        auto_forget_days=draw(st.just(()) | auto_forget_choices()),
    )


@settings(max_examples=300, deadline=None)
@given(item=items(), member=states())
def test_a_member_reader_sees_exactly_their_own(item, member):
    reader = Reader(kind=ReaderKind.MEMBER, member_id=M)
    assert (decide(item, reader, member, NOW) is None) == (item.member_id == M)


@settings(max_examples=400, deadline=None)
@given(item=items(), reader=readers(), member=states(), data=st.data())
def test_withdrawing_a_consent_never_makes_anything_more_visible(item, reader, member, data):
    fewer = data.draw(st.frozensets(st.sampled_from(sorted(member.consent_types) or [""])))
    narrowed = replace(
        member,
        consent_types=member.consent_types & fewer,
        categories=data.draw(st.frozensets(st.sampled_from(sorted(member.categories) or [""])))
        & member.categories,
        multi_actor_consented=member.multi_actor_consented and data.draw(st.booleans()),
    )
    if decide(item, reader, narrowed, NOW) is None:
        assert decide(item, reader, member, NOW) is None


@settings(max_examples=400, deadline=None)
@given(item=items(), reader=readers(), member=states(), data=st.data())
def test_narrowing_capabilities_never_makes_anything_more_visible(item, reader, member, data):
    caps = reader.capabilities

    def some(values):
        return data.draw(st.none() | st.frozensets(st.sampled_from(sorted(values) or [""])))

    narrowed = replace(
        reader,
        capabilities=caps.narrowed(
            surfaces=some(caps.surfaces),
            contexts=some(caps.contexts),
            read_kinds=some(caps.read_kinds),
        ),
    )
    if decide(item, narrowed, member, NOW) is None:
        assert decide(item, reader, member, NOW) is None


@settings(max_examples=400, deadline=None)
@given(item=items(), reader=readers(), member=states(), ago=st.integers(0, 10**6))
def test_an_ended_timed_pause_is_visible_iff_the_entry_unpaused_would_be(item, reader, member, ago):
    unpaused = replace(item, lifecycle=Lifecycle.ACTIVE, suppression=None)
    ended = replace(
        item,
        lifecycle=Lifecycle.PAUSED,
        suppression=Suppression(SuppressionReason.USER_PAUSE, NOW - timedelta(seconds=ago)),
    )
    assert (decide(ended, reader, member, NOW) is None) == (
        decide(unpaused, reader, member, NOW) is None
    )


@settings(max_examples=300, deadline=None)
@given(item=items(), reader=readers(), member=states())
def test_a_kind_withheld_as_a_whole_withholds_every_reached_item_of_it(item, reader, member):
    reason = kind_reason(item.kind, item.scope.kind if item.scope else None, reader, member)
    decided = decide(item, reader, member, NOW)
    if reason is not None:
        assert decided is not None
        if decided not in ("tenant-mismatch", "user-mismatch", "scope-mismatch"):
            assert decided == reason


@settings(max_examples=300, deadline=None)
@given(item=items(), reader=readers(), member=states())
def test_every_reason_for_a_long_term_entry_is_a_documented_envelope_key(item, reader, member):
    reason = decide(replace(item, kind=ContentKind.ENTRY), reader, member, NOW)
    assert reason is None or reason in ENVELOPE_REASONS


# --- the member's own controls: stop using, paused surfaces ---------------------------------


def test_the_members_controls_sit_in_the_documented_order():
    """surface-paused after reachability, before the allow-list; member-stopped-use after
    off the record, before the base consents."""
    item = entry(scope=key(K.PROFILE))
    reader = service(Consumer.TARA, scope=key(K.SESSION))
    member = state(
        paused_consumers=frozenset({Consumer.TARA}),
        off_the_record=True,
        stopped_use=True,
        consent_types=frozenset(),
    )
    # another member's item is user-mismatch first, a paused surface or not
    assert decide(replace(item, member_id=OTHER), reader, member, NOW) == "user-mismatch"
    # unreachable is scope-mismatch before the pause
    other_session = replace(item, scope=key(K.SESSION, session_id="s2"))
    assert decide(other_session, reader, member, NOW) == "scope-mismatch"
    for expected, repair in [
        ("surface-paused", {"paused_consumers": frozenset()}),
        ("off-the-record", {"off_the_record": False}),
        ("member-stopped-use", {"stopped_use": False}),
        ("scope-suppressed", {"consent_types": BASE}),
    ]:
        assert decide(item, reader, member, NOW) == expected
        assert kind_reason(item.kind, K.PROFILE, reader, member) == expected
        member = replace(member, **repair)
    assert decide(item, reader, member, NOW) is None


def test_a_paused_surface_is_withheld_even_from_what_the_allow_list_would_refuse():
    # shell may not read pose memory; paused, the reason is the member's pause
    item = entry(scope=key(K.POSE))
    reader = service(Consumer.SHELL)
    assert decide(item, reader, state(), NOW) == "consumer-not-allowed-for-scope"
    paused = state(paused_consumers=frozenset({Consumer.SHELL}))
    assert decide(item, reader, paused, NOW) == "surface-paused"


def test_stop_using_withholds_entries_and_their_short_term_copies_not_working_memory():
    member = state(stopped_use=True)
    reader = service()
    assert decide(entry(), reader, member, NOW) == "member-stopped-use"
    row = ContentItem(kind=ContentKind.STM, item_id="r1", member_id=M)
    assert decide(row, reader, member, NOW) is None
    copy = replace(row, derived_from=(Source(entry_id="e1"),))
    assert decide(copy, reader, member, NOW) == "member-stopped-use"
    token = ContentItem(kind=ContentKind.TOKEN, item_id="t1", member_id=M)
    assert decide(token, reader, member, NOW) is None
    # the member themself still sees everything of theirs
    assert decide(entry(), Reader(kind=ReaderKind.MEMBER, member_id=M), member, NOW) is None


@settings(max_examples=500, deadline=None)
@given(item=items(), reader=readers(), member=states(), data=st.data())
def test_a_paused_surfaces_reader_never_sees_an_item_whatever_else_is_true(
    item, reader, member, data
):
    consumer = reader.capabilities.consumer
    others = data.draw(st.frozensets(st.sampled_from(Consumer.values), max_size=3))
    paused = replace(member, paused_consumers=others | {consumer})
    item = data.draw(st.sampled_from([item, replace(item, kind=ContentKind.TURN)]))
    assert decide(item, reader, paused, NOW) is not None
    if decide(item, reader, member, NOW) is None:
        # visible before: now withheld for the pause, and for nothing else
        assert decide(item, reader, paused, NOW) == "surface-paused"


@settings(max_examples=400, deadline=None)
@given(item=items(), reader=readers(), member=states())
def test_stop_using_never_lets_a_service_reader_see_a_long_term_entry(item, reader, member):
    stopped = replace(member, stopped_use=True)
    assert decide(replace(item, kind=ContentKind.ENTRY), reader, stopped, NOW) is not None


@settings(max_examples=400, deadline=None)
@given(item=items(), reader=readers(), member=states(), data=st.data())
def test_the_members_controls_never_make_anything_more_visible(item, reader, member, data):
    more = replace(
        member,
        stopped_use=member.stopped_use or data.draw(st.booleans()),
        paused_consumers=member.paused_consumers
        | data.draw(st.frozensets(st.sampled_from(Consumer.values), max_size=2)),
    )
    if decide(item, reader, more, NOW) is None:
        assert decide(item, reader, member, NOW) is None


# --- forget automatically after… --------------------------------------------------------------


def test_auto_forget_withholds_an_entry_and_its_copies_from_the_instant_its_time_comes():
    member = state(auto_forget_days=((K.PROFILE, 91),))
    reader = service()
    due = NOW - timedelta(days=91)
    for asserted, expected in [
        (due + timedelta(seconds=1), None),
        (due, None),  # the sweep's rule: older than the cutoff, not at it
        (due - timedelta(seconds=1), "member-auto-forget"),
    ]:
        item = entry(scope=key(K.PROFILE), asserted_at=asserted)
        assert decide(item, reader, member, NOW) == expected
        copy = ContentItem(
            kind=ContentKind.STM,
            item_id="r1",
            member_id=M,
            derived_from=(Source(entry_id="e1", scope_kind=K.PROFILE, asserted_at=asserted),),
        )
        assert decide(copy, reader, member, NOW) == expected
    old = due - timedelta(days=400)
    # another kind, no choice, a timeless row: untouched; the member still sees their own
    assert decide(entry(scope=key(K.SESSION), asserted_at=old), reader, member, NOW) is None
    assert decide(entry(scope=key(K.PROFILE), asserted_at=old), reader, state(), NOW) is None
    assert decide(entry(scope=key(K.PROFILE)), reader, member, NOW) is None
    own = Reader(kind=ReaderKind.MEMBER, member_id=M)
    assert decide(entry(scope=key(K.PROFILE), asserted_at=old), own, member, NOW) is None
    # its own standing reason comes first (a held entry is counted as held)
    held = entry(scope=key(K.PROFILE), asserted_at=old, held=True)
    assert decide(held, reader, member, NOW) == "deletion-hold"
    assert auto_forget_at(K.PROFILE, due, member) == NOW
    assert auto_forget_at(K.PROFILE, None, member) is None
    assert auto_forget_at(K.TENANT, due, member) is None


@settings(max_examples=400, deadline=None)
@given(item=items(), reader=readers(), member=states(), choices=auto_forget_choices())
def test_an_auto_forget_choice_never_makes_anything_more_visible(item, reader, member, choices):
    chosen = replace(member, auto_forget_days=choices)
    unchosen = replace(member, auto_forget_days=())
    if decide(item, reader, chosen, NOW) is None:
        assert decide(item, reader, unchosen, NOW) is None
    elif decide(item, reader, unchosen, NOW) is None:
        # withheld only for the choice: something it holds is older than the choice allows
        assert decide(item, reader, chosen, NOW) == "member-auto-forget"
        subjects = [(item.scope.kind if item.scope else "", item.asserted_at)] + [
            (source.scope_kind, source.asserted_at) for source in item.derived_from
        ]
        assert any(
            (ends := auto_forget_at(kind, asserted, chosen)) is not None and ends < NOW
            for kind, asserted in subjects
        )
