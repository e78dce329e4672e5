from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.memory_scope_kind_enum import MemoryScopeKindEnum, check_memory_scope_kind_enum
from ..models.mode_enum import ModeEnum, check_mode_enum
from ..models.opt_out_category_enum import OptOutCategoryEnum, check_opt_out_category_enum
from ..models.scope_enum import ScopeEnum, check_scope_enum

T = TypeVar("T", bound="ScopePolicyOutput")


@_attrs_define
class ScopePolicyOutput:
    """
    Attributes:
        scope (ScopeEnum): * `assistant_profile` - Assistant Profile
            * `session` - Session
            * `scene` - Scene
            * `pose` - Pose
            * `conversation` - Conversation
            * `domain` - Domain
            * `cross_domain` - Cross Domain
            * `notebook` - Notebook
            * `operator_copilot` - Operator Copilot
            * `tenant` - Tenant
            * `admin_review` - Admin Review
        kind (MemoryScopeKindEnum): * `profile` - Profile
            * `session` - Session
            * `scene` - Scene
            * `pose` - Pose
            * `notebook` - Notebook
            * `crisis` - Crisis
            * `operator-copilot` - Operator Copilot
            * `tenant` - Tenant
        label (str):
        enabled (bool):
        mode (ModeEnum): * `durable` - Durable
            * `ephemeral` - Ephemeral
            * `suppressed` - Suppressed
        policy_notes (list[str]): The blueprint's notes on why the scope is off: every missing consent, opt-out and
            allow-list that stands in the way (empty when it is on).
        missing_consents (list[str]):
        opted_out (list[OptOutCategoryEnum]): The member's opt-outs that suppress this scope.
        consumer_allowed (bool): Always true in the member's own view.
    """

    scope: ScopeEnum
    kind: MemoryScopeKindEnum
    label: str
    enabled: bool
    mode: ModeEnum
    policy_notes: list[str]
    missing_consents: list[str]
    opted_out: list[OptOutCategoryEnum]
    consumer_allowed: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        scope: str = self.scope

        kind: str = self.kind

        label = self.label

        enabled = self.enabled

        mode: str = self.mode

        policy_notes = self.policy_notes

        missing_consents = self.missing_consents

        opted_out = []
        for opted_out_item_data in self.opted_out:
            opted_out_item: str = opted_out_item_data
            opted_out.append(opted_out_item)

        consumer_allowed = self.consumer_allowed

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "scope": scope,
                "kind": kind,
                "label": label,
                "enabled": enabled,
                "mode": mode,
                "policy_notes": policy_notes,
                "missing_consents": missing_consents,
                "opted_out": opted_out,
                "consumer_allowed": consumer_allowed,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        scope = check_scope_enum(d.pop("scope"))

        kind = check_memory_scope_kind_enum(d.pop("kind"))

        label = d.pop("label")

        enabled = d.pop("enabled")

        mode = check_mode_enum(d.pop("mode"))

        policy_notes = cast(list[str], d.pop("policy_notes"))

        missing_consents = cast(list[str], d.pop("missing_consents"))

        opted_out = []
        _opted_out = d.pop("opted_out")
        for opted_out_item_data in _opted_out:
            opted_out_item = check_opt_out_category_enum(opted_out_item_data)

            opted_out.append(opted_out_item)

        consumer_allowed = d.pop("consumer_allowed")

        scope_policy_output = cls(
            scope=scope,
            kind=kind,
            label=label,
            enabled=enabled,
            mode=mode,
            policy_notes=policy_notes,
            missing_consents=missing_consents,
            opted_out=opted_out,
            consumer_allowed=consumer_allowed,
        )

        scope_policy_output.additional_properties = d
        return scope_policy_output

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
