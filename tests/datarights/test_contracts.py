"""The three payloads and the seed's validation rules (pure, no database)."""

import pydantic
import pytest

from datarights.contracts import (
    DEFAULT_SOFT_GRACE_MS,
    MAX_GRACE_MS,
    AccessPayload,
    DeletePayload,
    ExportPayload,
    parse_payload,
)
from memory.enums import ScopeKind


def test_a_hard_delete_has_zero_grace():
    with pytest.raises(pydantic.ValidationError, match="hard delete has no grace"):
        DeletePayload.model_validate(
            {"mode": "hard", "scopes": ["profile"], "retention_grace_ms": 1}
        )
    assert (
        DeletePayload.model_validate({"mode": "hard", "scopes": ["profile"]}).retention_grace_ms
        == 0
    )


def test_a_delete_names_at_least_one_scope_or_category():
    with pytest.raises(pydantic.ValidationError, match="at least one scope or category"):
        DeletePayload.model_validate({"mode": "hard", "scopes": [], "categories": []})
    assert DeletePayload.model_validate({"mode": "hard", "categories": ["medical"]}).categories == (
        "medical",
    )


def test_a_soft_delete_gets_a_grace_window_bounded_to_thirty_days():
    assert (
        DeletePayload.model_validate({"mode": "soft", "scopes": ["profile"]}).retention_grace_ms
        == DEFAULT_SOFT_GRACE_MS
    )
    with pytest.raises(pydantic.ValidationError, match="needs a grace window"):
        DeletePayload.model_validate(
            {"mode": "soft", "scopes": ["profile"], "retention_grace_ms": 0}
        )
    with pytest.raises(pydantic.ValidationError):
        DeletePayload.model_validate(
            {"mode": "soft", "scopes": ["profile"], "retention_grace_ms": MAX_GRACE_MS + 1}
        )


def test_purging_the_consent_ledger_needs_a_sensitive_category():
    with pytest.raises(pydantic.ValidationError, match="purge_consent_ledger"):
        DeletePayload.model_validate(
            {"mode": "hard", "scopes": ["profile"], "purge_consent_ledger": True}
        )
    payload = DeletePayload.model_validate(
        {"mode": "hard", "categories": ["medical", "preference"], "purge_consent_ledger": True}
    )
    assert payload.consent_types_to_purge == ["category:medical"]


def test_unknown_scopes_categories_and_fields_are_refused():
    for bad in (
        {"mode": "hard", "scopes": ["galaxy"]},
        {"mode": "hard", "categories": ["gossip"]},
        {"mode": "hard", "scopes": ["profile"], "extra": 1},
        {"mode": "sideways", "scopes": ["profile"]},
        {"mode": "hard", "scopes": ["profile"], "retention_grace_ms": False},
    ):
        with pytest.raises(pydantic.ValidationError):
            DeletePayload.model_validate(bad)


def test_scopes_and_categories_are_normalised():
    payload = DeletePayload.model_validate(
        {"mode": "hard", "scopes": ["session", "profile", "session"]}
    )
    assert payload.scopes == ("profile", "session")


def test_scene_and_pose_are_exported_only_with_their_flags():
    with pytest.raises(pydantic.ValidationError, match="scene scope is exported only"):
        ExportPayload.model_validate({"scopes": ["scene"], "include_scene_memory": False})
    with pytest.raises(pydantic.ValidationError, match="pose scope is exported only"):
        ExportPayload.model_validate({"scopes": ["pose"], "include_pose_memory": False})
    payload = ExportPayload.model_validate(
        {"scopes": ["scene", "pose"], "include_scene_memory": True, "include_pose_memory": True}
    )
    assert payload.scope_kinds == ("pose", "scene")


def test_session_and_notebook_scopes_follow_their_include_flags():
    with pytest.raises(pydantic.ValidationError, match="include_session_memory"):
        ExportPayload.model_validate({"scopes": ["session"], "include_session_memory": False})
    with pytest.raises(pydantic.ValidationError, match="include_notebooks"):
        ExportPayload.model_validate({"scopes": ["notebook"], "include_notebooks": False})


def test_an_export_without_scopes_ships_what_its_flags_allow():
    # The default export is every memory: scene and pose included (issue 19).
    default = ExportPayload.model_validate({})
    assert set(default.scope_kinds) == set(ScopeKind.values)
    narrow = ExportPayload.model_validate(
        {
            "include_session_memory": False,
            "include_notebooks": False,
            "include_scene_memory": False,
        }
    )
    assert "session" not in narrow.scope_kinds and "notebook" not in narrow.scope_kinds
    assert "scene" not in narrow.scope_kinds and "pose" in narrow.scope_kinds


def test_export_format_and_channel_are_the_enumerated_ones():
    with pytest.raises(pydantic.ValidationError):
        ExportPayload.model_validate({"format": "csv"})
    with pytest.raises(pydantic.ValidationError):
        ExportPayload.model_validate({"delivery_channel": "fax"})


def test_access_is_read_only_with_an_operator_actions_flag():
    assert AccessPayload.model_validate({}).include_operator_actions is False
    with pytest.raises(pydantic.ValidationError):
        AccessPayload.model_validate({"delete_things": True})


def test_parse_payload_dispatches_on_kind():
    assert isinstance(parse_payload("access", None), AccessPayload)
    with pytest.raises(KeyError):
        parse_payload("rectify", {})
