"""The memory app's pure rules, tested without a database."""

import re
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from consent.enums import OptOutCategory, SensitiveCategory, category_consent_type
from iris_site.enums import Consumer
from memory.contracts import MultiActor
from memory.enums import (
    AdapterScope,
    ConflictOutcome,
    ConflictRule,
    ExpiryAction,
    MemoryCategory,
    Origin,
    PromotionReason,
    ScopeChangeReason,
    ScopeKind,
    ScopeMode,
    SourceKind,
    StorageGateReason,
)
from memory.policy.conflicts import (
    SESSION_PROFILE_PROMOTION_THRESHOLD,
    conflict_key,
    evaluate_session_profile_promotion,
    origins_met_by,
    resolve_write_conflict,
    source_kind_for,
)
from memory.policy.handles import ACTOR_HANDLE_PATTERN, actor_handle
from memory.policy.redaction import luhn_valid, redact_pii_from_text
from memory.policy.retention import (
    OPERATOR_COPILOT_RETENTION_DAYS,
    POSE_RAW_RETENTION_DAYS,
    POSE_SUMMARY_RETENTION_DAYS,
    SCENE_RAW_RETENTION_DAYS,
    SCENE_SUMMARY_RETENTION_DAYS,
    SESSION_RAW_RETENTION_DAYS,
    SESSION_SUMMARY_RETENTION_DAYS,
    TENANT_MEMORY_RETENTION_DAYS,
    retention_envelope,
    retention_envelope_for_kind,
)
from memory.policy.scopes import (
    ADAPTER_TO_KIND,
    KNOWN_CONSUMERS,
    SCOPE_BLUEPRINTS,
    build_scope_policies,
    consumer_may_use_kind,
    evaluate_kind_policy,
    evaluate_scope_change,
)
from memory.policy.storage import (
    ORIGIN_CONFIDENCE,
    confidence_for_origin,
    evaluate_privacy_storage_gate,
)

T0 = datetime(2026, 11, 30, 10, 0, tzinfo=UTC)
T1 = T0 + timedelta(hours=1)
MEMBER = uuid.UUID("2b0c4f4e-55a1-4c35-9a0f-3d7f1f0e9b11")
OTHER_MEMBER = uuid.UUID("5c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5")
SECRET = b"k" * 32

BASE_CONSENTS = frozenset({"data_processing", "data_storage", "sensitive_data"})
NONE: frozenset[str] = frozenset()


# --- confidence ---------------------------------------------------------------------------


def test_every_origin_has_a_confidence_in_the_seeds_weight_order():
    """user-stated > user-confirmed > summarized > imported > model-inferred > copilot."""
    assert set(ORIGIN_CONFIDENCE) == set(Origin.values)
    ordered = [
        Origin.USER_STATED,
        Origin.USER_CONFIRMED,
        Origin.SUMMARIZED_FROM_SESSION,
        Origin.IMPORTED,
        Origin.MODEL_INFERRED,
        Origin.OPERATOR_COPILOT,
    ]
    values = [confidence_for_origin(origin) for origin in ordered]
    assert values == [1.0, 0.9, 0.75, 0.7, 0.5, 0.4]


def test_an_unknown_origin_has_no_confidence():
    with pytest.raises(ValueError, match="unknown origin"):
        confidence_for_origin("promoted-from-session")


# --- privacy storage gate -------------------------------------------------------------------


def gate(category="preference", origin="user-stated", sensitive=False, consents=NONE):
    return evaluate_privacy_storage_gate(
        category=category,
        origin=origin,
        multi_actor_sensitive=sensitive,
        active_consent_types=consents,
    )


def test_an_ordinary_category_needs_no_category_consent():
    assert gate(origin="model-inferred").allowed


@pytest.mark.parametrize("category", SensitiveCategory.values)
def test_a_sensitive_write_without_its_category_consent_is_refused(category):
    """Even a member's own statement of a sensitive fact needs `category:<c>` consent."""
    # given a member with every base consent but not this category's
    # when
    result = gate(category=category, consents=BASE_CONSENTS)
    # then
    assert not result.allowed
    assert result.reason == StorageGateReason.SENSITIVE_CATEGORY_WITHOUT_CONSENT
    assert result.required_consent == f"category:{category}"


def test_a_consent_for_another_category_does_not_count():
    result = gate(category="medical", consents=frozenset({"category:legal"}))
    assert result.reason == "sensitive-category-without-consent"


@pytest.mark.parametrize("origin", ["user-stated", "user-confirmed"])
def test_a_sensitive_write_with_consent_is_stored(origin):
    assert gate(category="medical", origin=origin, consents=frozenset({"category:medical"})).allowed


# Whatever an inference is labelled: a summary or an import was never confirmed here.
@pytest.mark.parametrize(
    "origin", ["model-inferred", "operator-copilot", "summarized-from-session", "imported"]
)
def test_a_sensitive_inference_is_never_auto_persisted_even_with_consent(origin):
    result = gate(
        category="mental_health", origin=origin, consents=frozenset({"category:mental_health"})
    )
    assert not result.allowed
    assert result.reason == StorageGateReason.SENSITIVE_INFERENCE_REQUIRES_CONFIRMATION
    assert result.required_consent is None


def test_missing_consent_is_reported_before_the_missing_confirmation():
    """Without consent no confirmation could help, so that is what the member is told."""
    result = gate(category="medical", origin="model-inferred")
    assert result.reason == StorageGateReason.SENSITIVE_CATEGORY_WITHOUT_CONSENT


def test_a_sensitive_multi_actor_interaction_needs_its_own_consent():
    # given an ordinary category, but a sensitive interaction with someone
    refused = gate(category="relationship", sensitive=True)
    assert refused.reason == StorageGateReason.MULTI_ACTOR_SENSITIVE_WITHOUT_CONSENT
    assert refused.required_consent == "multi-actor-sensitive"
    # when the member has granted it
    consents = frozenset({"multi-actor-sensitive"})
    # then a stated fact is stored, an inferred one still is not
    assert gate(category="relationship", sensitive=True, consents=consents).allowed
    inferred = gate(
        category="relationship", origin="model-inferred", sensitive=True, consents=consents
    )
    assert inferred.reason == StorageGateReason.SENSITIVE_INFERENCE_REQUIRES_CONFIRMATION


# --- scope policies ---------------------------------------------------------------------------


def test_there_are_eleven_adapter_scopes_each_mapped_onto_a_canonical_kind():
    assert list(SCOPE_BLUEPRINTS) == AdapterScope.values
    assert set(ADAPTER_TO_KIND) == set(AdapterScope.values)
    assert set(ADAPTER_TO_KIND.values()) <= set(ScopeKind.values)
    assert ADAPTER_TO_KIND["assistant_profile"] == "profile"
    assert ADAPTER_TO_KIND["conversation"] == "session"
    assert ADAPTER_TO_KIND["operator_copilot"] == "operator-copilot"
    assert ADAPTER_TO_KIND["tenant"] == "tenant"


def test_the_governance_review_scopes_are_exactly_the_seeds_five():
    flagged = {s for s, b in SCOPE_BLUEPRINTS.items() if b.requires_governance_review}
    assert flagged == {"operator_copilot", "tenant", "cross_domain", "pose", "admin_review"}


def test_the_seeds_example_blueprints():
    """Pose needs three consents; operator copilot needs none and serves admin/support only."""
    pose = SCOPE_BLUEPRINTS["pose"]
    assert set(pose.required_consents) == {"data_processing", "data_storage", "sensitive_data"}
    assert pose.allowed_consumers == {"assistant", "tara", "studio", "admin"}
    copilot = SCOPE_BLUEPRINTS["operator_copilot"]
    assert copilot.required_consents == ()
    assert copilot.allowed_consumers == {"admin", "support"}
    for blueprint in SCOPE_BLUEPRINTS.values():
        assert blueprint.allowed_consumers <= KNOWN_CONSUMERS


def test_with_every_consent_every_scope_is_enabled_for_the_member():
    policies = build_scope_policies(active_consent_types=BASE_CONSENTS, opt_outs=NONE)
    assert all(p.enabled and p.notes == () for p in policies.values())
    assert policies["assistant_profile"].mode == ScopeMode.DURABLE
    assert policies["session"].mode == ScopeMode.EPHEMERAL
    assert policies["conversation"].mode == ScopeMode.DURABLE


def test_missing_consents_suppress_member_scopes_with_readable_notes():
    """Without consent only the operator-governed scopes stay on."""
    # when
    policies = build_scope_policies(active_consent_types=NONE, opt_outs=NONE)
    # then
    session = policies["session"]
    assert not session.enabled and session.mode == ScopeMode.SUPPRESSED
    assert session.notes == (
        "Session memory requires data processing consent.",
        "Session memory requires data storage consent.",
    )
    enabled = {scope for scope, policy in policies.items() if policy.enabled}
    assert enabled == {"operator_copilot", "admin_review"}


def test_pose_additionally_needs_sensitive_data_consent():
    consents = frozenset({"data_processing", "data_storage"})
    policies = build_scope_policies(active_consent_types=consents, opt_outs=NONE)
    assert policies["pose"].notes == ("Pose memory requires sensitive data consent.",)
    assert policies["pose"].missing_consents == ("sensitive_data",)
    assert policies["scene"].enabled


def test_a_disallowed_consumer_is_told_so_per_scope():
    policies = build_scope_policies(
        active_consent_types=BASE_CONSENTS, opt_outs=NONE, consumer="support"
    )
    assert not policies["session"].enabled
    assert policies["session"].notes == ("Consumer `support` is not allowed to use this scope.",)
    assert not policies["session"].consumer_allowed
    assert policies["operator_copilot"].enabled
    assert not policies["admin_review"].enabled


def test_an_unknown_consumer_may_use_nothing():
    policies = build_scope_policies(
        active_consent_types=BASE_CONSENTS, opt_outs=NONE, consumer="mystery-bot"
    )
    assert not any(policy.enabled for policy in policies.values())


def test_opt_outs_suppress_only_the_scopes_that_list_them():
    # when the member opts out of embodied memory
    policies = build_scope_policies(
        active_consent_types=BASE_CONSENTS, opt_outs=frozenset({OptOutCategory.EMBODIED})
    )
    # then scene and pose go quiet, and say why
    suppressed = {scope for scope, policy in policies.items() if not policy.enabled}
    assert suppressed == {"scene", "pose"}
    assert policies["scene"].notes == (
        "Scene memory is suppressed by the member's `embodied` opt-out.",
    )
    assert policies["pose"].opted_out == ("embodied",)


def test_the_global_memory_opt_out_leaves_operator_governed_scopes_alone():
    policies = build_scope_policies(
        active_consent_types=BASE_CONSENTS, opt_outs=frozenset({"memory"})
    )
    enabled = {scope for scope, policy in policies.items() if policy.enabled}
    assert enabled == {"operator_copilot", "tenant", "admin_review"}


@pytest.mark.parametrize(
    ("consumer", "kind", "allowed"),
    [
        ("assistant", "profile", True),
        ("support", "profile", False),
        ("support", "operator-copilot", True),
        ("admin", "operator-copilot", True),
        ("assistant", "operator-copilot", False),
        ("tara", "pose", True),
        ("nyx", "pose", False),
        ("living-scene", "scene", True),
        ("metis", "tenant", True),
        ("assistant", "tenant", False),
        ("tara", "notebook", True),  # through the domain scope
        ("assistant", "crisis", True),
        ("tara", "crisis", False),
        ("mystery-bot", "profile", False),
        ("assistant", "galaxy", False),
    ],
)
def test_consumer_may_use_kind(consumer, kind, allowed):
    assert consumer_may_use_kind(consumer, kind) is allowed


@pytest.mark.parametrize("consumer", Consumer.values)
def test_every_assistant_surface_may_use_profile_and_session_memory(consumer):
    assert consumer_may_use_kind(consumer, "profile")
    assert consumer_may_use_kind(consumer, "session")


def test_a_kind_is_usable_through_any_of_its_adapter_scopes():
    """Tara writes notebook-kind memory through `domain`, not through `notebook`."""
    # when every consent is granted
    policy = evaluate_kind_policy(
        "notebook", active_consent_types=BASE_CONSENTS, opt_outs=NONE, consumer="tara"
    )
    # then tara gets the domain scope, and a consumer allowed on both gets the primary one
    assert policy.enabled and policy.scope == "domain"
    primary = evaluate_kind_policy(
        "notebook", active_consent_types=BASE_CONSENTS, opt_outs=NONE, consumer="assistant"
    )
    assert primary.enabled and primary.scope == "notebook"


def test_a_refused_kind_explains_the_consent_not_the_allow_list():
    """Tara is refused for missing consent, not for a notebook allow-list it is not on."""
    refused = evaluate_kind_policy(
        "notebook", active_consent_types=NONE, opt_outs=NONE, consumer="tara"
    )
    assert not refused.enabled and refused.scope == "domain"
    assert refused.notes[0] == "Domain memory requires data processing consent."
    nobody = evaluate_kind_policy(
        "notebook", active_consent_types=NONE, opt_outs=NONE, consumer="x"
    )
    assert nobody.scope == "notebook" and not nobody.consumer_allowed


def test_crisis_memory_is_not_stopped_by_missing_consent():
    policy = evaluate_kind_policy(
        "crisis", active_consent_types=NONE, opt_outs=frozenset({"memory"})
    )
    assert policy.enabled and policy.kind == "crisis"


# --- scope changes ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "target", "reason"),
    [
        ("session", "profile", ScopeChangeReason.SESSION_PROMOTION),
        ("session", "notebook", ScopeChangeReason.SESSION_TO_NOTEBOOK),
        ("profile", "notebook", ScopeChangeReason.PROFILE_DEMOTION),
    ],
)
def test_the_seeds_scope_changes_are_allowed(source, target, reason):
    decision = evaluate_scope_change(source, target)
    assert decision.allowed and decision.reason == reason and decision.explanation


@pytest.mark.parametrize("target", [k for k in ScopeKind.values if k != "tenant"])
def test_tenant_memory_never_leaves_the_tenant(target):
    decision = evaluate_scope_change("tenant", target)
    assert not decision.allowed
    expected = (
        ScopeChangeReason.SCOPE_NOT_MEMBER_MOVABLE
        if target in ("crisis", "operator-copilot")
        else ScopeChangeReason.TENANT_MEMORY_STAYS_IN_TENANT
    )
    assert decision.reason == expected


@pytest.mark.parametrize(
    ("source", "target", "reason"),
    [
        ("profile", "tenant", ScopeChangeReason.CONSUMER_MEMORY_NEVER_ENTERS_TENANT),
        ("crisis", "profile", ScopeChangeReason.SCOPE_NOT_MEMBER_MOVABLE),
        ("operator-copilot", "profile", ScopeChangeReason.SCOPE_NOT_MEMBER_MOVABLE),
        ("session", "crisis", ScopeChangeReason.SCOPE_NOT_MEMBER_MOVABLE),
        ("profile", "profile", ScopeChangeReason.SAME_SCOPE),
        ("notebook", "profile", ScopeChangeReason.SCOPE_CHANGE_NOT_SUPPORTED),
        ("pose", "profile", ScopeChangeReason.SCOPE_CHANGE_NOT_SUPPORTED),
        ("profile", "session", ScopeChangeReason.SCOPE_CHANGE_NOT_SUPPORTED),
    ],
)
def test_other_scope_changes_are_refused_with_a_reason(source, target, reason):
    decision = evaluate_scope_change(source, target)
    assert not decision.allowed and decision.reason == reason and decision.explanation


def test_only_the_three_seed_moves_are_allowed_among_all_pairs():
    allowed = {
        (a, b)
        for a in ScopeKind.values
        for b in ScopeKind.values
        if evaluate_scope_change(a, b).allowed
    }
    assert allowed == {("session", "profile"), ("session", "notebook"), ("profile", "notebook")}


def test_an_unknown_scope_kind_is_an_error():
    with pytest.raises(ValueError, match="unknown scope kind"):
        evaluate_scope_change("session", "galaxy")


# --- retention ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("scope", "raw", "summary", "action"),
    [
        ("assistant_profile", None, None, "review"),
        ("session", 30, 90, "summarize"),
        ("conversation", 30, 90, "summarize"),
        ("scene", 14, 90, "summarize"),
        ("pose", 7, 30, "summarize"),
        ("notebook", None, None, "delete"),
        ("operator_copilot", 14, None, "review"),
        ("tenant", 365, None, "review"),
    ],
)
def test_retention_envelopes_match_the_seeds_table(scope, raw, summary, action):
    envelope = retention_envelope(scope)
    assert (envelope.raw_days, envelope.summary_days, envelope.expiry_action) == (
        raw,
        summary,
        action,
    )


def test_the_retention_constants_keep_the_seeds_values():
    assert (SESSION_RAW_RETENTION_DAYS, SESSION_SUMMARY_RETENTION_DAYS) == (30, 90)
    assert (SCENE_RAW_RETENTION_DAYS, SCENE_SUMMARY_RETENTION_DAYS) == (14, 90)
    assert (POSE_RAW_RETENTION_DAYS, POSE_SUMMARY_RETENTION_DAYS) == (7, 30)
    assert OPERATOR_COPILOT_RETENTION_DAYS == 14
    assert TENANT_MEMORY_RETENTION_DAYS == 365


def test_every_adapter_scope_and_kind_has_an_envelope():
    for scope in AdapterScope.values:
        assert retention_envelope(scope).expiry_action in ExpiryAction.values
    for kind in ScopeKind.values:
        assert retention_envelope_for_kind(kind).expiry_action in ExpiryAction.values
    assert retention_envelope_for_kind("session") == retention_envelope("session")
    with pytest.raises(ValueError, match="unknown adapter scope"):
        retention_envelope("galaxy")


def test_an_envelope_computes_its_deadlines():
    pose = retention_envelope("pose")
    assert pose.raw_expires_at(T0) == datetime(2026, 12, 7, 10, 0, tzinfo=UTC)
    assert pose.summary_expires_at(T0) == datetime(2026, 12, 30, 10, 0, tzinfo=UTC)
    assert retention_envelope("assistant_profile").raw_expires_at(T0) is None


# --- session → profile promotion --------------------------------------------------------------


def test_an_explicit_promotion_is_allowed_at_once():
    decision = evaluate_session_profile_promotion(explicit=True, occurrences=1)
    assert decision.allowed and decision.reason == PromotionReason.EXPLICIT_PROMOTION


def test_a_fact_seen_three_times_is_promoted():
    decision = evaluate_session_profile_promotion(explicit=False, occurrences=3)
    assert decision.allowed
    assert decision.reason == PromotionReason.REPEATED_OCCURRENCE_THRESHOLD_MET
    assert SESSION_PROFILE_PROMOTION_THRESHOLD == 3


def test_a_fact_seen_twice_is_not_yet_promoted():
    decision = evaluate_session_profile_promotion(explicit=False, occurrences=2)
    assert not decision.allowed
    assert decision.reason == PromotionReason.REPEATED_OCCURRENCE_THRESHOLD_NOT_MET


def test_an_implicit_one_off_is_blocked():
    decision = evaluate_session_profile_promotion(explicit=False, occurrences=1)
    assert not decision.allowed
    assert decision.reason == PromotionReason.IMPLICIT_PROMOTION_BLOCKED


def test_nothing_is_promoted_unless_requested():
    """Not even an explicit, frequent fact drifts into the profile unasked."""
    decision = evaluate_session_profile_promotion(explicit=True, occurrences=9, requested=False)
    assert not decision.allowed and decision.reason == PromotionReason.NOT_REQUESTED


def test_negative_occurrences_are_an_error():
    with pytest.raises(ValueError, match="negative"):
        evaluate_session_profile_promotion(explicit=False, occurrences=-1)


@given(explicit=st.booleans(), occurrences=st.integers(0, 50), requested=st.booleans())
def test_promotion_is_allowed_only_when_requested_and_earned(explicit, occurrences, requested):
    decision = evaluate_session_profile_promotion(
        explicit=explicit, occurrences=occurrences, requested=requested
    )
    assert decision.allowed == (requested and (explicit or occurrences >= 3))
    assert decision.reason in PromotionReason.values


# --- write-time conflicts -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("origin", "source"),
    [
        ("user-stated", SourceKind.EXPLICIT_USER),
        ("user-confirmed", SourceKind.USER_CONFIRMED),
        ("model-inferred", SourceKind.MODEL_INFERRED),
        ("operator-copilot", SourceKind.ADMIN_COPILOT_INFERRED),
        ("summarized-from-session", SourceKind.MODEL_INFERRED),
        ("imported", SourceKind.MODEL_INFERRED),
    ],
)
def test_source_kind_for_every_origin(origin, source):
    assert source_kind_for(origin) == source


@given(st.sampled_from(Origin.values), st.sampled_from(Origin.values))
def test_writes_meet_across_the_operator_boundary_only_through_the_members_word(new, old):
    """Meeting is symmetric; an operator's note meets another note or the member's own
    word, never an inference, a summary or an import."""
    meets = old in origins_met_by(new)
    assert meets == (new in origins_met_by(old))
    members = {Origin.USER_STATED, Origin.USER_CONFIRMED}
    if Origin.OPERATOR_COPILOT in {new, old} and new != old:
        assert meets == bool({new, old} & members)
    else:
        assert meets


def resolve(existing, new, *, existing_at=T0, new_at=T1):
    return resolve_write_conflict(
        existing_origin=existing,
        existing_updated_at=existing_at,
        new_origin=new,
        new_updated_at=new_at,
    )


@pytest.mark.parametrize("existing", ["user-stated", "user-confirmed"])
def test_admin_copilot_never_trumps_what_the_member_stated(existing):
    """A newer operator-copilot inference leaves the member's fact in place, and asks."""
    result = resolve(existing, "operator-copilot")
    assert result.rule == ConflictRule.ADMIN_COPILOT_NEVER_TRUMPS_CONSUMER_STATED
    assert result.outcome == ConflictOutcome.KEEP_EXISTING
    assert result.ask_member


def test_explicit_user_trumps_inferred_in_both_directions():
    # given an inference, a member statement replaces it, even if older
    replaced = resolve("model-inferred", "user-stated", new_at=T0 - timedelta(days=1))
    assert replaced.rule == ConflictRule.EXPLICIT_USER_TRUMPS_INFERRED
    assert replaced.outcome == ConflictOutcome.REPLACE_EXISTING
    assert not replaced.ask_member
    # given a member statement, a newer inference does not replace it, but the member is asked
    kept = resolve("user-stated", "model-inferred")
    assert kept.rule == ConflictRule.EXPLICIT_USER_TRUMPS_INFERRED
    assert kept.outcome == ConflictOutcome.KEEP_EXISTING
    assert kept.ask_member


def test_user_confirmed_trumps_inferred_in_both_directions():
    replaced = resolve("operator-copilot", "user-confirmed")
    assert replaced.rule == ConflictRule.USER_CONFIRMED_TRUMPS_INFERRED
    assert replaced.outcome == ConflictOutcome.REPLACE_EXISTING
    kept = resolve("user-confirmed", "summarized-from-session")
    assert kept.rule == ConflictRule.USER_CONFIRMED_TRUMPS_INFERRED
    assert kept.outcome == ConflictOutcome.KEEP_EXISTING
    assert kept.ask_member


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        ("user-stated", "user-stated"),
        ("user-stated", "user-confirmed"),
        ("model-inferred", "imported"),
        ("operator-copilot", "operator-copilot"),
        ("operator-copilot", "model-inferred"),
    ],
)
def test_most_recent_wins_between_equal_authorities(existing, new):
    newer = resolve(existing, new, existing_at=T0, new_at=T1)
    older = resolve(existing, new, existing_at=T1, new_at=T0)
    tie = resolve(existing, new, existing_at=T0, new_at=T0)
    assert newer.rule == older.rule == tie.rule == ConflictRule.MOST_RECENT_WINS
    assert newer.outcome == ConflictOutcome.REPLACE_EXISTING
    assert older.outcome == ConflictOutcome.KEEP_EXISTING
    assert tie.outcome == ConflictOutcome.REPLACE_EXISTING  # the later arrival
    assert not newer.ask_member


origins = st.sampled_from(Origin.values)
instants = st.datetimes(
    min_value=datetime(2020, 1, 1), max_value=datetime(2030, 1, 1), timezones=st.just(UTC)
)


@given(a=origins, b=origins, a_at=instants, b_at=instants)
def test_the_same_record_wins_whichever_arrives_second(a, b, a_at, b_at):
    """Antisymmetry: swapping which record is stored and which is new keeps the winner."""
    assume(a_at != b_at)
    first = resolve(a, b, existing_at=a_at, new_at=b_at)
    second = resolve(b, a, existing_at=b_at, new_at=a_at)
    winner_first = "b" if first.outcome == ConflictOutcome.REPLACE_EXISTING else "a"
    winner_second = "a" if second.outcome == ConflictOutcome.REPLACE_EXISTING else "b"
    assert winner_first == winner_second


@given(existing=origins, new=origins, existing_at=instants, new_at=instants)
def test_a_member_fact_is_never_replaced_by_something_the_member_did_not_say(
    existing, new, existing_at, new_at
):
    result = resolve(existing, new, existing_at=existing_at, new_at=new_at)
    member = {"explicit_user", "user_confirmed"}
    if result.existing_source in member and result.new_source not in member:
        assert result.outcome == ConflictOutcome.KEEP_EXISTING
        assert result.ask_member
    else:
        assert not result.ask_member


def test_conflict_key_joins_category_actor_and_subject():
    assert conflict_key(category="preference", actor_handle=None, subject="Coffee ") == (
        "preference::::coffee"
    )
    assert conflict_key(category="relationship", actor_handle="actor_ab", subject=None) == (
        "relationship::actor_ab::"
    )
    assert conflict_key(category="goal", actor_handle="actor_ab", subject="Run  a\tMarathon") == (
        "goal::actor_ab::run a marathon"
    )


# --- actor handles ----------------------------------------------------------------------------


def test_an_actor_handle_is_a_stable_keyed_hash():
    first = actor_handle(secret=SECRET, member_id=MEMBER, raw_name="Anna Müller")
    assert first == actor_handle(secret=SECRET, member_id=str(MEMBER), raw_name="Anna Müller")
    assert re.fullmatch(ACTOR_HANDLE_PATTERN, first)
    assert "anna" not in first.casefold()
    MultiActor(actor_handle=first)  # the contract accepts it


def test_an_actor_handle_ignores_case_and_spacing_of_the_name():
    canonical = actor_handle(secret=SECRET, member_id=MEMBER, raw_name="anna müller")
    for variant in ("  Anna   MÜLLER ", "ANNA\tmüller", "Anna\nMüller"):
        assert actor_handle(secret=SECRET, member_id=MEMBER, raw_name=variant) == canonical


def test_an_actor_handle_is_bound_to_the_members_namespace_and_the_secret():
    """The same name gives unrelated handles for two members or two secrets."""
    mine = actor_handle(secret=SECRET, member_id=MEMBER, raw_name="Anna")
    assert mine != actor_handle(secret=SECRET, member_id=OTHER_MEMBER, raw_name="Anna")
    assert mine != actor_handle(secret=b"q" * 32, member_id=MEMBER, raw_name="Anna")
    assert mine != actor_handle(secret=SECRET, member_id=MEMBER, raw_name="Anne")


def test_an_actor_handle_needs_a_real_secret_and_a_name():
    with pytest.raises(ValueError, match="secret"):
        actor_handle(secret=b"short", member_id=MEMBER, raw_name="Anna")
    for nameless in ("  \t ", "!!!", "..."):
        with pytest.raises(ValueError, match="letter or digit"):
            actor_handle(secret=SECRET, member_id=MEMBER, raw_name=nameless)


def test_a_name_is_one_person_however_a_reader_would_not_tell_it_apart():
    """Punctuation, spacing, width, accents and look-alike letters: one handle."""
    canonical = actor_handle(secret=SECRET, member_id=MEMBER, raw_name="Quorvex7")
    for variant in ("Quorvex7.", "Quorvex 7", "QUORVEX-7", "\uff31uorvex\uff17", "Qu\u043ervex7"):
        assert actor_handle(secret=SECRET, member_id=MEMBER, raw_name=variant) == canonical
    assert actor_handle(secret=SECRET, member_id=MEMBER, raw_name="Quorvex8") != canonical


# --- PII redaction ------------------------------------------------------------------------------


def test_emails_become_stable_tokens():
    result = redact_pii_from_text("Mail jane.doe+x@example.co.uk, or JANE.DOE+x@Example.co.uk.")
    assert result.text == "Mail [EMAIL_1], or [EMAIL_1]."
    assert dict(result.tokens) == {"[EMAIL_1]": "email"}


@pytest.mark.parametrize(
    "phone",
    [
        "+44 20 7946 0958",
        "+1-202-555-0143",
        "(555) 123-4567",
        "555-123-4567",
        "555.123.4567",
        "2025550143",
        "555-0143",
    ],
)
def test_phone_numbers_become_tokens(phone):
    result = redact_pii_from_text(f"Call me on {phone} tonight.")
    assert result.text == "Call me on [PHONE_1] tonight."
    assert dict(result.tokens) == {"[PHONE_1]": "phone"}


@pytest.mark.parametrize(
    "card", ["4111 1111 1111 1111", "4111-1111-1111-1111", "4111111111111111", "378282246310005"]
)
def test_luhn_valid_card_numbers_become_tokens(card):
    result = redact_pii_from_text(f"My card is {card}, expiring soon.")
    assert result.text == "My card is [CARD_1], expiring soon."


def test_a_card_followed_by_its_security_code_is_still_found():
    result = redact_pii_from_text("4111 1111 1111 1111 123")
    assert result.text == "[CARD_1] 123"


def test_a_number_failing_the_luhn_check_is_not_a_card():
    assert not luhn_valid("1234567812345678")
    assert redact_pii_from_text("ref 1234567812345678").text == "ref 1234567812345678"


@pytest.mark.parametrize(
    "address",
    [
        "221B Baker Street",
        "1600 Pennsylvania Avenue NW",
        "12 Main St., Apt 4B",
        "350 5th Avenue",
        "Hauptstraße 12",
        "12 rue de Rivoli",
    ],
)
def test_street_addresses_become_tokens(address):
    result = redact_pii_from_text(f"I live at {address} now.")
    assert result.text == "I live at [ADDRESS_1] now."
    assert dict(result.tokens) == {"[ADDRESS_1]": "address"}


@pytest.mark.parametrize(
    "text",
    [
        "On 2026-11-30 10:30 I walked 10000 steps.",
        "Pi is 3.14159 and the router is 10.20.30.40.",
        "We moved in 1999 2004 2011, it cost 1,000,000 or 1234567.50.",
        "I walked 3 miles down the road.",
        "Nothing personal here at all.",
    ],
)
def test_ordinary_numbers_and_text_are_left_alone(text):
    result = redact_pii_from_text(text)
    assert result.text == text and not result.redacted


def test_tokens_are_numbered_per_kind_and_never_hold_the_values():
    # given
    text = (
        "a@example.com and b@example.org, call +1 202 555 0143, "
        "card 4111 1111 1111 1111, live at 221B Baker Street."
    )
    # when
    result = redact_pii_from_text(text)
    # then
    assert result.text == (
        "[EMAIL_1] and [EMAIL_2], call [PHONE_1], card [CARD_1], live at [ADDRESS_1]."
    )
    assert dict(result.tokens) == {
        "[EMAIL_1]": "email",
        "[EMAIL_2]": "email",
        "[PHONE_1]": "phone",
        "[CARD_1]": "card",
        "[ADDRESS_1]": "address",
    }
    assert "example" not in repr(result.tokens)


words = st.text(alphabet=st.sampled_from("abcdefghij KLMNOP,;!?"), max_size=40)


@given(before=words, email=st.emails(), after=words)
def test_redaction_output_never_contains_the_input_email(before, email, after):
    result = redact_pii_from_text(f"{before} {email} {after}")
    assert email not in result.text
    assert "[EMAIL_1]" in result.text


@given(st.text(alphabet=st.characters(exclude_categories=("Nd", "Cs"), exclude_characters="@")))
def test_text_without_digits_or_at_signs_is_unchanged(text):
    assert redact_pii_from_text(text).text == text


@given(st.lists(st.integers(0, 9), min_size=15, max_size=15), st.sampled_from(["", " ", "-"]))
def test_any_luhn_valid_sixteen_digit_number_is_redacted(digits, separator):
    # given a 16-digit number completed with its Luhn check digit
    for check in range(10):
        number = "".join(map(str, [*digits, check]))
        if luhn_valid(number):
            break
    grouped = separator.join(number[i : i + 4] for i in range(0, 16, 4))
    # when
    result = redact_pii_from_text(f"pay with {grouped} please")
    # then
    assert result.text == "pay with [CARD_1] please"


def test_category_vocabularies_line_up():
    """The storage gate's consent names come from the consent app's vocabulary."""
    assert category_consent_type("medical") == "category:medical"
    assert set(SensitiveCategory.values) < set(MemoryCategory.values)
