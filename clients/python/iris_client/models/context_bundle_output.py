from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.context_bundle_output_episodic_item import ContextBundleOutputEpisodicItem
    from ..models.context_bundle_output_ltm import ContextBundleOutputLtm
    from ..models.context_bundle_output_stm_item import ContextBundleOutputStmItem
    from ..models.context_bundle_output_stm_withheld import ContextBundleOutputStmWithheld


T = TypeVar("T", bound="ContextBundleOutput")


@_attrs_define
class ContextBundleOutput:
    """
    Attributes:
        scope_id (str):
        stm (list[ContextBundleOutputStmItem]):
        stm_withheld (ContextBundleOutputStmWithheld): Short-term rows the read gate withheld, by reason (never named).
        ltm (ContextBundleOutputLtm): {"entries": [...], "entities": [...], "relationships": [...], "audit_envelope":
            {...}}: each entry has its `freshness` and `entity_ids`, when it was true as the member said it (`valid_from`,
            `valid_to`, null when unsaid, with what each was said to in `valid_from_precision`, `valid_to_precision`) and
            when Iris learned it (`learned_at`), as recall gives them; the entities and relationships are those of the
            returned entries; the envelope's `suppression_counts` count the withheld entries by reason.
        episodic (list[ContextBundleOutputEpisodicItem]):
        resolved_at (datetime.datetime):
        cached (bool): Served from the 30-second bundle cache.
    """

    scope_id: str
    stm: list[ContextBundleOutputStmItem]
    stm_withheld: ContextBundleOutputStmWithheld
    ltm: ContextBundleOutputLtm
    episodic: list[ContextBundleOutputEpisodicItem]
    resolved_at: datetime.datetime
    cached: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        scope_id = self.scope_id

        stm = []
        for stm_item_data in self.stm:
            stm_item = stm_item_data.to_dict()
            stm.append(stm_item)

        stm_withheld = self.stm_withheld.to_dict()

        ltm = self.ltm.to_dict()

        episodic = []
        for episodic_item_data in self.episodic:
            episodic_item = episodic_item_data.to_dict()
            episodic.append(episodic_item)

        resolved_at = self.resolved_at.isoformat()

        cached = self.cached

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "scope_id": scope_id,
                "stm": stm,
                "stm_withheld": stm_withheld,
                "ltm": ltm,
                "episodic": episodic,
                "resolved_at": resolved_at,
                "cached": cached,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.context_bundle_output_episodic_item import ContextBundleOutputEpisodicItem
        from ..models.context_bundle_output_ltm import ContextBundleOutputLtm
        from ..models.context_bundle_output_stm_item import ContextBundleOutputStmItem
        from ..models.context_bundle_output_stm_withheld import ContextBundleOutputStmWithheld

        d = dict(src_dict)
        scope_id = d.pop("scope_id")

        stm = []
        _stm = d.pop("stm")
        for stm_item_data in _stm:
            stm_item = ContextBundleOutputStmItem.from_dict(stm_item_data)

            stm.append(stm_item)

        stm_withheld = ContextBundleOutputStmWithheld.from_dict(d.pop("stm_withheld"))

        ltm = ContextBundleOutputLtm.from_dict(d.pop("ltm"))

        episodic = []
        _episodic = d.pop("episodic")
        for episodic_item_data in _episodic:
            episodic_item = ContextBundleOutputEpisodicItem.from_dict(episodic_item_data)

            episodic.append(episodic_item)

        resolved_at = datetime.datetime.fromisoformat(d.pop("resolved_at"))

        cached = d.pop("cached")

        context_bundle_output = cls(
            scope_id=scope_id,
            stm=stm,
            stm_withheld=stm_withheld,
            ltm=ltm,
            episodic=episodic,
            resolved_at=resolved_at,
            cached=cached,
        )

        context_bundle_output.additional_properties = d
        return context_bundle_output

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
