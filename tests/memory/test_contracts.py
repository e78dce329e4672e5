"""The memory contracts mirror seed 001's MemoryEntry schema; no database needed."""

import uuid
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from consent.enums import SensitiveCategory
from memory.contracts import (
    SCOPE_IDENTIFIERS,
    SCOPE_KEY_ADAPTER,
    MemoryEntry,
    MemoryWriteRequest,
    MultiActor,
    parse_scope_key,
    scope_key,
)
from memory.enums import (
    Lifecycle,
    Origin,
    ProvenanceKind,
    ScopeKind,
    SuppressionReason,
)
from memory.policy.handles import actor_handle

T0 = datetime(2026, 11, 30, 10, 0, tzinfo=UTC)
MEMBER = uuid.UUID("2b0c4f4e-55a1-4c35-9a0f-3d7f1f0e9b11")
TENANT = uuid.UUID("7d5e8c1a-0b2f-4c3d-8e9f-112233445566")
OPERATOR = uuid.UUID("9a8b7c6d-5e4f-4a3b-9c2d-1e0f0a0b0c0d")
ENTRY_ID = uuid.UUID(int=1)
REVISION_ID = uuid.UUID(int=2)
SECRET = b"s" * 32

SCOPES = {
    ScopeKind.PROFILE: {"kind": "profile", "user_id": str(MEMBER)},
    ScopeKind.SESSION: {"kind": "session", "user_id": str(MEMBER), "session_id": "s-1"},
    ScopeKind.SCENE: {
        "kind": "scene",
        "user_id": str(MEMBER),
        "session_id": "s-1",
        "scene_id": "scene-7",
        "room_id": "room-2",
    },
    ScopeKind.POSE: {
        "kind": "pose",
        "user_id": str(MEMBER),
        "session_id": "s-1",
        "scene_id": "scene-7",
        "pose_id": "pose-3",
        "avatar_id": "avatar-9",
    },
    ScopeKind.NOTEBOOK: {"kind": "notebook", "user_id": str(MEMBER), "notebook_id": "nb-4"},
    ScopeKind.CRISIS: {"kind": "crisis", "user_id": str(MEMBER)},
    ScopeKind.OPERATOR_COPILOT: {
        "kind": "operator-copilot",
        "user_id": str(MEMBER),
        "operator_id": str(OPERATOR),
    },
    ScopeKind.TENANT: {"kind": "tenant", "tenant_id": str(TENANT), "user_id": str(MEMBER)},
}


def entry_payload(**overrides) -> dict:
    payload = {
        "id": str(ENTRY_ID),
        "revision_id": str(REVISION_ID),
        "previous_revision_id": None,
        "user_id": str(MEMBER),
        "tenant_id": None,
        "scope": SCOPES[ScopeKind.PROFILE],
        "category": "preference",
        "subject": "coffee",
        "body": "I take my coffee black.",
        "confidence": 1.0,
        "origin": "user-stated",
        "lifecycle": "active",
        "consent": [],
        "provenance_chain": [
            {"kind": "session-turn", "ref": "turn-1", "captured_at": T0.isoformat()}
        ],
        "expires_at": None,
        "last_referenced_at": None,
        "reference_count": 0,
        "suppression": None,
        "multi_actor": None,
        "audit_chain": [
            {
                "at": T0.isoformat(),
                "action": "created",
                "actor": "member",
                "revision_id": str(REVISION_ID),
            }
        ],
        "created_at": T0.isoformat(),
        "updated_at": T0.isoformat(),
    }
    return {**payload, **overrides}


def consent_for(category: str, *, revoked_at: datetime | None = None) -> dict:
    return {
        "category": category,
        "granted_at": (T0 - timedelta(days=1)).isoformat(),
        "revoked_at": revoked_at.isoformat() if revoked_at else None,
        "source": "settings-toggle",
    }


def assert_round_trips(payload: dict) -> MemoryEntry:
    entry = MemoryEntry.model_validate(payload)
    assert MemoryEntry.model_validate(entry.model_dump()) == entry
    assert MemoryEntry.model_validate_json(entry.model_dump_json()) == entry
    assert MemoryEntry.model_validate(entry.model_dump(mode="json")) == entry
    return entry


def error_locs(excinfo: pytest.ExceptionInfo[ValidationError]) -> list[tuple]:
    return [error["loc"] for error in excinfo.value.errors()]


# --- round trips ------------------------------------------------------------------------


@pytest.mark.parametrize("origin", Origin.values)
def test_every_origin_round_trips(origin):
    """Each of the six origins survives dump → validate unchanged."""
    entry = assert_round_trips(entry_payload(origin=origin))
    assert entry.origin == origin


@pytest.mark.parametrize("lifecycle", Lifecycle.values)
def test_every_lifecycle_round_trips(lifecycle):
    """Each of the five lifecycles survives dump → validate unchanged."""
    entry = assert_round_trips(entry_payload(lifecycle=lifecycle))
    assert entry.lifecycle == lifecycle


@pytest.mark.parametrize("category", SensitiveCategory.values)
def test_every_sensitive_category_round_trips_with_its_consent(category):
    """A sensitive entry carries the consent entry for its category and round-trips."""
    entry = assert_round_trips(entry_payload(category=category, consent=[consent_for(category)]))
    assert entry.category == category
    assert entry.consent[0].category == category


@pytest.mark.parametrize("reason", SuppressionReason.values)
def test_the_suppression_marker_round_trips(reason):
    """Suppression is one nullable object; every reason, with or without an end, survives."""
    for ends_at in (None, (T0 + timedelta(hours=2)).isoformat()):
        suppression = {
            "reason": reason,
            "started_at": T0.isoformat(),
            "ends_at": ends_at,
            "notes": "",
        }
        entry = assert_round_trips(entry_payload(lifecycle="paused", suppression=suppression))
        assert entry.suppression is not None
        assert entry.suppression.reason == reason


@pytest.mark.parametrize("kind", ScopeKind.values)
def test_every_scope_kind_round_trips(kind):
    """Each of the eight scope kinds carries exactly its identifiers and round-trips."""
    # given
    tenant_id = str(TENANT) if kind == ScopeKind.TENANT else None
    # when
    entry = assert_round_trips(entry_payload(scope=SCOPES[kind], tenant_id=tenant_id))
    # then
    assert entry.scope.kind == kind
    assert set(entry.scope.model_dump()) == {"kind", *SCOPE_IDENTIFIERS[kind]}


def test_a_full_entry_round_trips_with_every_part():
    """Multi-actor, provenance of every kind, audit chain and counters all survive."""
    handle = actor_handle(secret=SECRET, member_id=MEMBER, raw_name="Anna")
    payload = entry_payload(
        category="relationship",
        multi_actor={
            "actor_handle": handle,
            "relationship_note": "my sister",
            "sensitive_interaction": False,
        },
        provenance_chain=[
            {"kind": kind, "ref": f"ref-{index}", "captured_at": T0.isoformat()}
            for index, kind in enumerate(ProvenanceKind.values)
        ],
        previous_revision_id=str(uuid.UUID(int=3)),
        last_referenced_at=(T0 + timedelta(days=2)).isoformat(),
        expires_at=(T0 + timedelta(days=30)).isoformat(),
        reference_count=4,
        updated_at=(T0 + timedelta(days=1)).isoformat(),
    )
    entry = assert_round_trips(payload)
    assert entry.multi_actor is not None and entry.multi_actor.actor_handle == handle
    assert [link.kind for link in entry.provenance_chain] == ProvenanceKind.values


def test_the_scope_union_names_exactly_the_eight_kinds():
    """The contract's union, the canonical-key table and ScopeKind agree."""
    assert set(SCOPE_IDENTIFIERS) == set(ScopeKind.values)
    for kind, payload in SCOPES.items():
        assert SCOPE_KEY_ADAPTER.validate_python(payload).kind == kind


# --- refusals name the field --------------------------------------------------------------


def test_a_4001_character_body_is_refused_and_names_body():
    """The body is 1..4000 characters; 4000 passes, 4001 fails on `body`."""
    MemoryEntry.model_validate(entry_payload(body="x" * 4000))
    with pytest.raises(ValidationError) as excinfo:
        MemoryEntry.model_validate(entry_payload(body="x" * 4001))
    assert error_locs(excinfo) == [("body",)]
    assert excinfo.value.errors()[0]["type"] == "string_too_long"


@pytest.mark.parametrize("body", ["", "   \n\t", "bad\x00byte"])
def test_an_empty_blank_or_nul_body_is_refused(body):
    """Plain text with something visible in it, and no NUL (PostgreSQL cannot store it)."""
    with pytest.raises(ValidationError) as excinfo:
        MemoryEntry.model_validate(entry_payload(body=body))
    assert error_locs(excinfo) == [("body",)]


def test_an_unknown_category_is_refused_and_names_category():
    with pytest.raises(ValidationError) as excinfo:
        MemoryEntry.model_validate(entry_payload(category="horoscope"))
    assert error_locs(excinfo) == [("category",)]


@pytest.mark.parametrize(
    ("field", "value"),
    [("origin", "promoted-from-session"), ("lifecycle", "summarized")],
)
def test_the_stale_spec_enum_values_are_refused(field, value):
    """The seed's accuracy fixes: these spellings never existed in the code."""
    with pytest.raises(ValidationError) as excinfo:
        MemoryEntry.model_validate(entry_payload(**{field: value}))
    assert error_locs(excinfo) == [(field,)]


@pytest.mark.parametrize("kind", [k for k in ScopeKind.values if len(SCOPE_IDENTIFIERS[k]) > 1])
def test_a_scope_missing_its_identifiers_is_refused_and_names_them(kind):
    """Dropping any identifier but user_id fails on scope.<kind>.<identifier>."""
    # given
    required = [name for name in SCOPE_IDENTIFIERS[kind] if name != "user_id"]
    scope = {key: value for key, value in SCOPES[kind].items() if key not in required}
    # when
    with pytest.raises(ValidationError) as excinfo:
        MemoryEntry.model_validate(entry_payload(scope=scope))
    # then
    assert sorted(error_locs(excinfo)) == sorted(("scope", kind, name) for name in required)
    assert {error["type"] for error in excinfo.value.errors()} == {"missing"}


def test_a_scope_without_a_kind_or_with_an_unknown_kind_is_refused():
    for scope in ({"user_id": str(MEMBER)}, {"kind": "galaxy", "user_id": str(MEMBER)}):
        with pytest.raises(ValidationError) as excinfo:
            MemoryEntry.model_validate(entry_payload(scope=scope))
        assert error_locs(excinfo) == [("scope",)]


def test_an_unknown_extra_field_is_refused_and_named():
    """extra="forbid" everywhere: at the top level and inside nested parts."""
    with pytest.raises(ValidationError) as excinfo:
        MemoryEntry.model_validate(entry_payload(mood="cheerful"))
    assert error_locs(excinfo) == [("mood",)]
    assert excinfo.value.errors()[0]["type"] == "extra_forbidden"

    with pytest.raises(ValidationError) as excinfo:
        MemoryEntry.model_validate(entry_payload(scope={**SCOPES["profile"], "room_id": "r"}))
    assert error_locs(excinfo) == [("scope", "profile", "room_id")]


@pytest.mark.parametrize("session_id", ["has space", "a:b", "x" * 129, ""])
def test_scope_identifiers_are_short_tokens_without_whitespace_or_colons(session_id):
    scope = {**SCOPES[ScopeKind.SESSION], "session_id": session_id}
    with pytest.raises(ValidationError) as excinfo:
        MemoryEntry.model_validate(entry_payload(scope=scope))
    assert error_locs(excinfo) == [("scope", "session", "session_id")]


def test_naive_timestamps_are_refused():
    """A timestamp without a time zone is ambiguous; every one must be aware."""
    with pytest.raises(ValidationError) as excinfo:
        MemoryEntry.model_validate(entry_payload(created_at="2026-11-30T10:00:00"))
    assert error_locs(excinfo) == [("created_at",)]


@pytest.mark.parametrize(
    ("field", "value"),
    [("confidence", 1.5), ("confidence", -0.1), ("confidence", "0.5"), ("reference_count", -1)],
)
def test_confidence_and_reference_count_stay_in_range(field, value):
    with pytest.raises(ValidationError) as excinfo:
        MemoryEntry.model_validate(entry_payload(**{field: value}))
    assert error_locs(excinfo) == [(field,)]


def test_subject_is_optional_and_at_most_200_characters():
    assert MemoryEntry.model_validate(entry_payload(subject=None)).subject is None
    MemoryEntry.model_validate(entry_payload(subject="s" * 200))
    with pytest.raises(ValidationError) as excinfo:
        MemoryEntry.model_validate(entry_payload(subject="s" * 201))
    assert error_locs(excinfo) == [("subject",)]


def test_multi_actor_note_is_at_most_500_characters_and_the_handle_is_opaque():
    """A raw name is never accepted where a handle belongs."""
    handle = actor_handle(secret=SECRET, member_id=MEMBER, raw_name="Anna")
    MultiActor(actor_handle=handle, relationship_note="n" * 500)
    with pytest.raises(ValidationError) as excinfo:
        MultiActor(actor_handle=handle, relationship_note="n" * 501)
    assert error_locs(excinfo) == [("relationship_note",)]
    with pytest.raises(ValidationError) as excinfo:
        MultiActor(actor_handle="Anna Müller")
    assert error_locs(excinfo) == [("actor_handle",)]


def test_a_suppression_cannot_end_before_it_starts():
    suppression = {
        "reason": "user-pause",
        "started_at": T0.isoformat(),
        "ends_at": (T0 - timedelta(seconds=1)).isoformat(),
    }
    with pytest.raises(ValidationError, match="ends_at cannot be before started_at"):
        MemoryEntry.model_validate(entry_payload(suppression=suppression))


# --- cross-field rules ----------------------------------------------------------------------


def test_a_tenant_entry_carries_its_scopes_tenant_and_owner():
    """tenant_id must equal scope.tenant_id, and scope.user_id the entry's user_id."""
    # given a tenant scope
    scope = SCOPES[ScopeKind.TENANT]
    # then a matching entry passes
    MemoryEntry.model_validate(entry_payload(scope=scope, tenant_id=str(TENANT)))
    # and a missing or different tenant is refused
    for tenant_id in (None, str(uuid.UUID(int=99))):
        with pytest.raises(ValidationError, match=r"tenant_id must equal scope\.tenant_id"):
            MemoryEntry.model_validate(entry_payload(scope=scope, tenant_id=tenant_id))
    # and so is a scope owned by someone else
    other = {**scope, "user_id": str(uuid.UUID(int=42))}
    with pytest.raises(ValidationError, match=r"scope\.user_id must equal user_id"):
        MemoryEntry.model_validate(entry_payload(scope=other, tenant_id=str(TENANT)))


@pytest.mark.parametrize("kind", ScopeKind.values)
def test_every_scope_belongs_to_the_entrys_owner(kind):
    scope = {**SCOPES[kind], "user_id": str(uuid.UUID(int=42))}
    tenant_id = str(TENANT) if kind == ScopeKind.TENANT else None
    with pytest.raises(ValidationError, match=r"scope\.user_id must equal user_id"):
        MemoryEntry.model_validate(entry_payload(scope=scope, tenant_id=tenant_id))


def test_profile_memory_never_carries_a_tenant():
    with pytest.raises(ValidationError, match="profile memory cannot carry a tenant_id"):
        MemoryEntry.model_validate(entry_payload(tenant_id=str(TENANT)))


def test_a_sensitive_entry_without_its_consent_entry_is_refused():
    with pytest.raises(ValidationError, match="must carry a consent entry"):
        MemoryEntry.model_validate(entry_payload(category="medical"))
    with pytest.raises(ValidationError, match="must carry a consent entry"):
        MemoryEntry.model_validate(
            entry_payload(category="medical", consent=[consent_for("legal")])
        )


def test_a_revoked_consent_is_shown_on_any_revision_but_never_replaces_the_record():
    """The record says when the grant ended, as the ledger stands: a forgotten revision
    and a live one waiting for its cascade both show it; a sensitive entry without its
    record stays refused."""
    revoked = [consent_for("medical", revoked_at=T0)]
    for lifecycle in ("tombstoned", "active"):
        entry = MemoryEntry.model_validate(
            entry_payload(category="medical", lifecycle=lifecycle, consent=revoked)
        )
        assert entry.consent[0].revoked_at == T0
    with pytest.raises(ValidationError, match="must carry a consent entry"):
        MemoryEntry.model_validate(entry_payload(category="medical", lifecycle="active"))


def test_a_revision_cannot_precede_itself():
    with pytest.raises(ValidationError, match="previous_revision_id"):
        MemoryEntry.model_validate(entry_payload(previous_revision_id=str(REVISION_ID)))
    with pytest.raises(ValidationError, match="updated_at cannot be before created_at"):
        MemoryEntry.model_validate(entry_payload(updated_at=(T0 - timedelta(1)).isoformat()))


# --- scope keys ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        (ScopeKind.PROFILE, f"profile:{MEMBER}"),
        (ScopeKind.SESSION, f"session:{MEMBER}:s-1"),
        (ScopeKind.SCENE, f"scene:{MEMBER}:s-1:scene-7:room-2"),
        (ScopeKind.POSE, f"pose:{MEMBER}:s-1:scene-7:pose-3:avatar-9"),
        (ScopeKind.NOTEBOOK, f"notebook:{MEMBER}:nb-4"),
        (ScopeKind.CRISIS, f"crisis:{MEMBER}"),
        (ScopeKind.OPERATOR_COPILOT, f"operator-copilot:{MEMBER}:{OPERATOR}"),
        (ScopeKind.TENANT, f"tenant:{TENANT}:{MEMBER}"),
    ],
)
def test_scope_key_is_the_kind_then_its_identifiers_in_seed_order(kind, expected):
    scope = SCOPE_KEY_ADAPTER.validate_python(SCOPES[kind])
    assert scope_key(scope) == expected
    assert parse_scope_key(expected) == scope


def test_a_malformed_scope_key_is_refused():
    for key in (f"session:{MEMBER}", f"profile:{MEMBER}:extra", "galaxy:1", "profile:not-a-uuid"):
        with pytest.raises(ValueError, match=r"."):
            parse_scope_key(key)


token = st.text(
    alphabet=st.characters(categories=("L", "N"), include_characters="-_."),
    min_size=1,
    max_size=20,
)


@given(kind=st.sampled_from(ScopeKind.values), user=st.uuids(), ids=st.lists(token, min_size=5))
def test_scope_key_is_injective_and_parses_back(kind, user, ids):
    """Any valid scope's key parses back to the same scope."""
    # given
    values = {
        name: str(user) if name in {"user_id", "tenant_id", "operator_id"} else ids[index]
        for index, name in enumerate(SCOPE_IDENTIFIERS[kind])
    }
    scope = SCOPE_KEY_ADAPTER.validate_python({"kind": kind, **values})
    # then
    assert parse_scope_key(scope_key(scope)) == scope


# --- the write request -----------------------------------------------------------------------


def write_payload(**overrides) -> dict:
    payload = {
        "scope": {"kind": "session", "session_id": "s-1"},
        "category": "preference",
        "subject": "coffee",
        "body": "Prefers oat milk.",
        "origin": "model-inferred",
    }
    return {**payload, **overrides}


def test_a_write_request_takes_the_owner_from_the_member():
    """The client leaves scope.user_id out; validation context supplies it."""
    request = MemoryWriteRequest.model_validate(write_payload(), context={"user_id": MEMBER})
    assert request.scope.user_id == MEMBER
    assert request.confidence is None
    assert request.provenance == ()


def test_a_write_request_cannot_name_another_members_scope():
    scope = {"kind": "session", "session_id": "s-1", "user_id": str(uuid.UUID(int=42))}
    with pytest.raises(ValidationError, match="member's own id"):
        MemoryWriteRequest.model_validate(write_payload(scope=scope), context={"user_id": MEMBER})


def test_a_write_request_without_context_needs_the_full_scope():
    with pytest.raises(ValidationError) as excinfo:
        MemoryWriteRequest.model_validate(write_payload())
    assert error_locs(excinfo) == [("scope", "session", "user_id")]


@pytest.mark.parametrize(
    ("overrides", "loc"),
    [
        ({"body": "x" * 4001}, ("body",)),
        ({"category": "horoscope"}, ("category",)),
        ({"scope": {"kind": "notebook"}}, ("scope", "notebook", "notebook_id")),
        ({"priority": "high"}, ("priority",)),
        ({"origin": "gossip"}, ("origin",)),
        ({"confidence": 2}, ("confidence",)),
    ],
)
def test_a_bad_write_request_names_the_field(overrides, loc):
    with pytest.raises(ValidationError) as excinfo:
        MemoryWriteRequest.model_validate(write_payload(**overrides), context={"user_id": MEMBER})
    assert error_locs(excinfo) == [loc]


def test_a_write_mention_names_the_person_or_reuses_a_handle_but_not_both():
    handle = actor_handle(secret=SECRET, member_id=MEMBER, raw_name="Anna")
    for mention in ({"actor_name": "Anna"}, {"actor_handle": handle}):
        request = MemoryWriteRequest.model_validate(
            write_payload(multi_actor={**mention, "relationship_note": "my sister"}),
            context={"user_id": MEMBER},
        )
        assert request.multi_actor is not None
    for mention in ({}, {"actor_name": "Anna", "actor_handle": handle}):
        with pytest.raises(ValidationError, match="exactly one of actor_name and actor_handle"):
            MemoryWriteRequest.model_validate(
                write_payload(multi_actor=mention), context={"user_id": MEMBER}
            )


def test_a_write_request_round_trips_with_every_optional_part():
    payload = write_payload(
        confidence=0.6,
        provenance=[{"kind": "inference-batch", "ref": "batch-1", "captured_at": T0.isoformat()}],
        suppression={"reason": "user-pause", "started_at": T0.isoformat()},
        multi_actor={"actor_name": "Anna", "sensitive_interaction": True},
    )
    request = MemoryWriteRequest.model_validate(payload, context={"user_id": MEMBER})
    assert MemoryWriteRequest.model_validate(request.model_dump(mode="json")) == request
