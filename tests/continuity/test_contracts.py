"""The ContinuationToken contract without a database: every field, limit and invariant of
seed 001's table fails with the culprit named, and nothing but references gets in."""

import json
import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from consent.enums import SensitiveCategory
from continuity.contracts import (
    ANCHOR_ID_MAX_LENGTH,
    CURSOR_MAX_LENGTH,
    DEVICE_ID_MAX_LENGTH,
    IDEMPOTENCY_KEY_MAX_LENGTH,
    SCOPE_KEY_MAX_LENGTH,
    SESSION_ID_MAX_LENGTH,
    contract_error_fields,
    token_parse,
)
from continuity.enums import Posture, Surface
from iris_site.idempotency import request_fingerprint
from tests.continuity.factories import token_body


def fingerprint(wire: dict) -> str:
    """The idempotency layer's fingerprint of a token write (what a retry is matched by)."""
    return request_fingerprint(
        method="PUT", path="/api/v1/members/m/continuation-tokens/", body=wire
    )


CATEGORIES = SensitiveCategory.values


def errors_of(body) -> dict[str, list[str]]:
    with pytest.raises(ValidationError) as caught:
        token_parse(body)
    return contract_error_fields(caught.value)


def nested(body: dict, path: str, value) -> dict:
    head, _, leaf = path.partition(".")
    if leaf:
        return {**body, head: {**body[head], leaf: value}}
    return {**body, head: value}


def without(body: dict, path: str) -> dict:
    head, _, leaf = path.partition(".")
    if leaf:
        return {**body, head: {k: v for k, v in body[head].items() if k != leaf}}
    return {k: v for k, v in body.items() if k != head}


def test_the_api_md_example_is_a_valid_token():
    token = token_parse(token_body())
    assert token.surface == "tara"
    assert token.anchor_ref.cursor == "00:14:32"
    assert token.wire()["last_updated_at"] == "2026-11-30T10:00:00Z"


def test_optional_session_and_tenant_may_be_left_out():
    body = token_body()
    body["surface_context"] = {"surface": "tara"}
    token = token_parse(body)
    assert token.surface_context.session_id is None and token.surface_context.tenant_id is None


@pytest.mark.parametrize(
    ("path", "limit"),
    [
        ("scope_key", SCOPE_KEY_MAX_LENGTH),
        ("device_id", DEVICE_ID_MAX_LENGTH),
        ("idempotency_key", IDEMPOTENCY_KEY_MAX_LENGTH),
        ("surface_context.session_id", SESSION_ID_MAX_LENGTH),
        ("anchor_ref.anchor_id", ANCHOR_ID_MAX_LENGTH),
        ("anchor_ref.cursor", CURSOR_MAX_LENGTH),
    ],
)
def test_each_reference_has_a_length_limit_and_no_room_for_prose(path, limit):
    assert limit == {"scope_key": 160, "device_id": 96}.get(path, limit)  # seed 001's limits
    token_parse(nested(token_body(), path, "x" * limit))  # at the limit: fine
    assert path in errors_of(nested(token_body(), path, "x" * (limit + 1)))
    assert path in errors_of(nested(token_body(), path, ""))
    for spaced in ("paused at minute 4", "a\tb", "line\nbreak", "nul\x00", "\u00a0nbsp"):
        assert path in errors_of(nested(token_body(), path, spaced)), spaced


@pytest.mark.parametrize(
    ("path", "bad"),
    [
        ("token_id", "not-a-uuid"),
        ("user_id", "42"),
        ("cross_device_consent_id", "consent-1"),
        ("surface_context.tenant_id", "tenant-1"),
        ("surface_context.surface", "veritas"),
        ("anchor_ref.surface", "assistant"),
        ("posture", "paused at minute 4"),
        ("posture", "Listening"),
        ("last_updated_at", "yesterday"),
        ("last_updated_at", "2026-11-30T10:00:00"),  # no time zone
        ("sensitive_categories", ["preference"]),  # a category, but not a sensitive one
    ],
)
def test_enums_ids_and_times_are_checked(path, bad):
    fields = errors_of(nested(token_body(), path, bad))
    assert any(key == path or key.startswith(f"{path}.") for key in fields), fields


@pytest.mark.parametrize(
    ("path", "bad"),
    [
        ("token_id", 12345),
        ("posture", ["listening"]),
        ("sensitive_categories", "medical"),
        ("last_updated_at", 1_764_496_800),  # a unix time is not coerced
        ("device_id", 7),
        ("surface_context", "tara"),
    ],
)
def test_strict_nothing_is_coerced(path, bad):
    assert path in errors_of(nested(token_body(), path, bad))


@pytest.mark.parametrize(
    "path",
    [
        "token_id",
        "user_id",
        "scope_key",
        "device_id",
        "surface_context",
        "surface_context.surface",
        "anchor_ref",
        "anchor_ref.surface",
        "anchor_ref.anchor_id",
        "anchor_ref.cursor",
        "posture",
        "sensitive_categories",
        "cross_device_consent_id",
        "idempotency_key",
        "last_updated_at",
    ],
)
def test_every_field_of_the_seed_table_is_required(path):
    assert path in errors_of(without(token_body(), path))


@pytest.mark.parametrize(
    "path",
    ["body", "text", "transcript", "content", "title", "anchor_ref.text", "surface_context.note"],
)
def test_no_content_field_can_ride_along(path):
    fields = errors_of(nested(token_body(), path, "I was listening to the part about grief"))
    assert list(fields) == [path]
    assert "references and posture only" in fields[path][0]


def test_anchor_surface_must_equal_the_context_surface():
    body = token_body()
    body["anchor_ref"] = {**body["anchor_ref"], "surface": "psyche"}
    assert errors_of(body) == {
        "anchor_ref.surface": ["anchor_ref.surface must equal surface_context.surface."]
    }


def test_sensitive_categories_require_a_cross_device_consent_id():
    fields = errors_of(token_body(sensitive_categories=["mental_health"]))
    assert list(fields) == ["cross_device_consent_id"]
    token = token_parse(
        token_body(
            sensitive_categories=["mental_health"], cross_device_consent_id=str(uuid.uuid4())
        )
    )
    assert token.sensitive_categories == ["mental_health"]


def test_at_most_sixteen_sensitive_categories_each_once():
    consent = str(uuid.uuid4())
    assert len(CATEGORIES) == 19
    token_parse(token_body(sensitive_categories=CATEGORIES[:16], cross_device_consent_id=consent))
    too_many = token_body(sensitive_categories=CATEGORIES[:17], cross_device_consent_id=consent)
    assert "at most 16" in errors_of(too_many)["sensitive_categories"][0]
    twice = token_body(sensitive_categories=["medical", "medical"], cross_device_consent_id=consent)
    assert errors_of(twice) == {
        "sensitive_categories": ["Each sensitive category may appear only once."]
    }


def test_the_body_must_be_an_object():
    assert "non_field_errors" in errors_of([token_body()])


def test_times_are_normalised_to_utc_so_equal_instants_fingerprint_equally():
    utc = token_parse(token_body(last_updated_at="2026-11-30T10:00:00Z"))
    offset = token_parse(
        {**utc.wire(), "last_updated_at": "2026-11-30T12:00:00+02:00"},
    )
    assert offset.wire()["last_updated_at"] == "2026-11-30T10:00:00Z"
    assert fingerprint(utc.wire()) == fingerprint(offset.wire())


# --- properties --------------------------------------------------------------------------

reference = st.text(
    alphabet=st.characters(
        min_codepoint=0x21, max_codepoint=0x2FF, exclude_characters="\x7f\x85\xa0"
    ),
    min_size=1,
    max_size=24,
)


@st.composite
def tokens(draw) -> dict:
    surface = draw(st.sampled_from(Surface.values))
    categories = draw(st.lists(st.sampled_from(CATEGORIES), unique=True, max_size=16))
    return token_body(
        surface=surface,
        scope_key=draw(reference),
        device_id=draw(reference),
        anchor_ref={"surface": surface, "anchor_id": draw(reference), "cursor": draw(reference)},
        posture=draw(st.sampled_from(Posture.values)),
        sensitive_categories=categories,
        cross_device_consent_id=str(uuid.uuid4()) if categories else None,
        idempotency_key=draw(reference),
    )


@given(tokens())
def test_valid_tokens_round_trip_and_fingerprint_ignores_key_order(body):
    token = token_parse(body)
    assert token_parse(token.wire()) == token
    shuffled = json.dumps(dict(reversed(list(token.wire().items()))))
    assert fingerprint(token_parse(shuffled).wire()) == fingerprint(token.wire())


@given(tokens(), st.from_regex(r"\A[a-z][a-z_]{0,15}\Z"))
def test_any_unknown_field_is_rejected(body, name):
    if name in body:
        return
    assert list(errors_of({**body, name: "x"})) == [name]
