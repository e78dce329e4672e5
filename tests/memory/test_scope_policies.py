"""Scope policy with the member's opt-outs, as pure functions (no database): the
blueprints, the write path's kind policy, the read gate, and the words the member page
says them in."""

from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from consent.enums import CONSENT_TYPES, OptOutCategory
from memory.access.capabilities import capabilities_for
from memory.access.gate import (
    ContentItem,
    ContentKind,
    MemberState,
    Reader,
    ReaderKind,
    ScopeKey,
    decide,
    kind_reason,
)
from memory.enums import ScopeKind, ScopeMode
from memory.policy.scopes import (
    KIND_BLUEPRINTS,
    KNOWN_CONSUMERS,
    SCOPE_BLUEPRINTS,
    build_scope_policies,
    evaluate_kind_policy,
)
from memory.scopes import OPT_OUT_WORDS, SCOPE_WORDS, scope_rows, why_off

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
M = "member-1"
BASE = frozenset({"data_processing", "data_storage"})
EVERY = frozenset(CONSENT_TYPES)

consent_sets = st.frozensets(st.sampled_from(CONSENT_TYPES))
opt_out_sets = st.frozensets(st.sampled_from(OptOutCategory.values), min_size=1)
consumers = st.none() | st.sampled_from(sorted(KNOWN_CONSUMERS))


# --- the blueprints ------------------------------------------------------------------------


@given(consents=consent_sets, opt_outs=opt_out_sets, consumer=consumers)
def test_an_opted_out_category_suppresses_every_scope_that_lists_it(consents, opt_outs, consumer):
    policies = build_scope_policies(
        active_consent_types=consents, opt_outs=opt_outs, consumer=consumer
    )
    for scope, policy in policies.items():
        listed = [o for o in SCOPE_BLUEPRINTS[scope].opt_out_categories if o in opt_outs]
        assert policy.opted_out == tuple(listed)
        if listed:
            # off, suppressed, and every opt-out that stands in the way is named
            assert not policy.enabled and policy.mode == ScopeMode.SUPPRESSED
            for category in listed:
                assert any(f"`{category}` opt-out" in note for note in policy.notes)


@given(consents=consent_sets, opt_outs=opt_out_sets, consumer=consumers)
def test_a_kind_whose_every_scope_lists_an_opt_out_refuses_writes_naming_it(
    consents, opt_outs, consumer
):
    for kind, blueprints in KIND_BLUEPRINTS.items():
        if not all(set(b.opt_out_categories) & opt_outs for b in blueprints):
            continue
        policy = evaluate_kind_policy(
            kind, active_consent_types=consents, opt_outs=opt_outs, consumer=consumer
        )
        assert not policy.enabled
        if policy.consumer_allowed:
            assert policy.opted_out and any("opt-out" in note for note in policy.notes)


def test_personalisation_leaves_the_notebook_kind_open_through_the_notebook_scope():
    # given the member turned personalisation off: profile and domain are gone
    opt_outs = frozenset({OptOutCategory.PERSONALIZATION})
    # when a write in the profile kind, and one in the notebook kind, are evaluated
    profile = evaluate_kind_policy(ScopeKind.PROFILE, active_consent_types=BASE, opt_outs=opt_outs)
    notebook = evaluate_kind_policy(
        ScopeKind.NOTEBOOK, active_consent_types=BASE, opt_outs=opt_outs, consumer="notebook"
    )
    # then the profile refuses with the reason, the notebook (not personalisation) stays
    assert not profile.enabled
    assert profile.notes == (
        "Profile memory is suppressed by the member's `personalization` opt-out.",
    )
    assert notebook.enabled and notebook.scope == "notebook"


# --- the read gate ----------------------------------------------------------------------


def state(opt_outs=frozenset()) -> MemberState:
    return MemberState(member_id=M, consent_types=BASE, categories=frozenset(), opt_outs=opt_outs)


def reader(scope: ScopeKey) -> Reader:
    return Reader(
        kind=ReaderKind.SERVICE,
        member_id=M,
        capabilities=capabilities_for("assistant"),
        scope=scope,
    )


SESSION = ScopeKey(kind=ScopeKind.SESSION, user_id=M, session_id="s1")
PROFILE = ScopeKey(kind=ScopeKind.PROFILE, user_id=M)


def test_the_gate_withholds_entries_and_short_term_rows_of_an_opted_out_scope():
    entry = ContentItem(kind=ContentKind.ENTRY, item_id="e1", member_id=M, scope=SESSION)
    row = ContentItem(kind=ContentKind.STM, item_id="r1", member_id=M, scope=SESSION)
    history_off = state(frozenset({OptOutCategory.CONVERSATION_HISTORY}))
    for item in (entry, row):
        assert decide(item, reader(SESSION), state(), NOW) is None
        assert decide(item, reader(SESSION), history_off, NOW) == "scope-suppressed"
        assert kind_reason(item.kind, ScopeKind.SESSION, reader(SESSION), history_off) == (
            "scope-suppressed"
        )
    # an opt-out of another category leaves the session visible
    embodied_off = state(frozenset({OptOutCategory.EMBODIED}))
    assert decide(row, reader(SESSION), embodied_off, NOW) is None
    assert decide(entry, reader(SESSION), embodied_off, NOW) is None


@given(opt_outs=opt_out_sets)
def test_the_gate_and_the_write_path_agree_on_every_kind(opt_outs):
    """What a write in a kind meets (`evaluate_kind_policy`) is what a read of it meets."""
    for kind in (ScopeKind.PROFILE, ScopeKind.SESSION, ScopeKind.SCENE, ScopeKind.NOTEBOOK):
        scope = {
            ScopeKind.PROFILE: PROFILE,
            ScopeKind.SESSION: SESSION,
            ScopeKind.SCENE: ScopeKey(
                kind=ScopeKind.SCENE, user_id=M, session_id="s1", scene_id="c1", room_id="r1"
            ),
            ScopeKind.NOTEBOOK: ScopeKey(kind=ScopeKind.NOTEBOOK, user_id=M, notebook_id="n1"),
        }[kind]
        item = ContentItem(kind=ContentKind.ENTRY, item_id="e1", member_id=M, scope=scope)
        enabled = evaluate_kind_policy(kind, active_consent_types=BASE, opt_outs=opt_outs).enabled
        withheld = decide(item, reader(scope), state(opt_outs), NOW) == "scope-suppressed"
        assert withheld == (not enabled)


# --- the member page's words -----------------------------------------------------------


def test_every_scope_and_opt_out_has_member_words():
    assert set(SCOPE_WORDS) == set(SCOPE_BLUEPRINTS)
    assert set(OPT_OUT_WORDS) == set(OptOutCategory.values)
    for title, description in SCOPE_WORDS.values():
        assert "_" not in title and description.endswith(".")


def test_the_page_says_why_a_scope_is_off_in_plain_words():
    policies = build_scope_policies(
        active_consent_types=frozenset({"data_processing"}),
        opt_outs=frozenset({OptOutCategory.PERSONALIZATION}),
    )
    rows = {row.scope: row for row in scope_rows(policies)}
    profile = rows["assistant_profile"]
    assert (profile.title, profile.state, profile.enabled) == ("Things about you", "Off", False)
    assert profile.reasons == (
        "because you turned off “Personalisation”",
        "because you have not allowed keeping memories between conversations",
    )
    assert rows["operator_copilot"].state == "On: kept only for the moment"
    assert rows["operator_copilot"].reasons == ()
    # no internal key leaks into what the member reads
    for row in rows.values():
        for reason in row.reasons:
            assert "`" not in reason and "_" not in reason


def test_a_surface_off_a_scopes_list_is_named_as_such():
    policy = build_scope_policies(active_consent_types=EVERY, opt_outs=frozenset(), consumer="tara")
    assert why_off(policy["notebook"]) == ["because this assistant may not use it"]
