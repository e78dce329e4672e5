from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.provenance_output import ProvenanceOutput
    from ..models.recalled_entry_output_multi_actor_type_0 import RecalledEntryOutputMultiActorType0
    from ..models.recalled_entry_output_scope import RecalledEntryOutputScope


T = TypeVar("T", bound="RecalledEntryOutput")


@_attrs_define
class RecalledEntryOutput:
    """
    Attributes:
        id (UUID):
        revision_id (UUID):
        body (str):
        category (str):
        subject (str):
        origin (str):
        scope (RecalledEntryOutputScope):
        score (float):
        provenance_chain (list[ProvenanceOutput]):
        multi_actor (None | RecalledEntryOutputMultiActorType0):
        freshness (float): 0.5 ** (age / half-life) of its source tier (`memory.policy.freshness`), the age counted from
            its last revision: 1.0 just asserted, 0.5 one half-life ago.
        entity_ids (list[UUID]): The ids of the entities it is about (listed under entities).
        valid_from (datetime.datetime | None): When it became true, as the member's words said ("since 2019"); null when
            they did not say. The first instant of the year, month or day they named.
        valid_from_precision (str): What `valid_from` was said to: `year`, `month` or `day`; empty when unsaid.
        valid_to (datetime.datetime | None): When it stopped being true, as the member said ("until March"); null when
            they did not say.
        valid_to_precision (str): What `valid_to` was said to; empty when unsaid.
        learned_at (datetime.datetime): When Iris first learned it (for audit); `as_of` answers by the valid times where
            the member said them, else by this.
        rationale (str | Unset): Present only where the surface's budget shows it.
    """

    id: UUID
    revision_id: UUID
    body: str
    category: str
    subject: str
    origin: str
    scope: RecalledEntryOutputScope
    score: float
    provenance_chain: list[ProvenanceOutput]
    multi_actor: None | RecalledEntryOutputMultiActorType0
    freshness: float
    entity_ids: list[UUID]
    valid_from: datetime.datetime | None
    valid_from_precision: str
    valid_to: datetime.datetime | None
    valid_to_precision: str
    learned_at: datetime.datetime
    rationale: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.recalled_entry_output_multi_actor_type_0 import (
            RecalledEntryOutputMultiActorType0,
        )

        id = str(self.id)

        revision_id = str(self.revision_id)

        body = self.body

        category = self.category

        subject = self.subject

        origin = self.origin

        scope = self.scope.to_dict()

        score = self.score

        provenance_chain = []
        for provenance_chain_item_data in self.provenance_chain:
            provenance_chain_item = provenance_chain_item_data.to_dict()
            provenance_chain.append(provenance_chain_item)

        multi_actor: dict[str, Any] | None
        if isinstance(self.multi_actor, RecalledEntryOutputMultiActorType0):
            multi_actor = self.multi_actor.to_dict()
        else:
            multi_actor = self.multi_actor

        freshness = self.freshness

        entity_ids = []
        for entity_ids_item_data in self.entity_ids:
            entity_ids_item = str(entity_ids_item_data)
            entity_ids.append(entity_ids_item)

        valid_from: None | str
        if isinstance(self.valid_from, datetime.datetime):
            valid_from = self.valid_from.isoformat()
        else:
            valid_from = self.valid_from

        valid_from_precision = self.valid_from_precision

        valid_to: None | str
        if isinstance(self.valid_to, datetime.datetime):
            valid_to = self.valid_to.isoformat()
        else:
            valid_to = self.valid_to

        valid_to_precision = self.valid_to_precision

        learned_at = self.learned_at.isoformat()

        rationale = self.rationale

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "revision_id": revision_id,
                "body": body,
                "category": category,
                "subject": subject,
                "origin": origin,
                "scope": scope,
                "score": score,
                "provenance_chain": provenance_chain,
                "multi_actor": multi_actor,
                "freshness": freshness,
                "entity_ids": entity_ids,
                "valid_from": valid_from,
                "valid_from_precision": valid_from_precision,
                "valid_to": valid_to,
                "valid_to_precision": valid_to_precision,
                "learned_at": learned_at,
            }
        )
        if rationale is not UNSET:
            field_dict["rationale"] = rationale

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.provenance_output import ProvenanceOutput
        from ..models.recalled_entry_output_multi_actor_type_0 import (
            RecalledEntryOutputMultiActorType0,
        )
        from ..models.recalled_entry_output_scope import RecalledEntryOutputScope

        d = dict(src_dict)
        id = UUID(d.pop("id"))

        revision_id = UUID(d.pop("revision_id"))

        body = d.pop("body")

        category = d.pop("category")

        subject = d.pop("subject")

        origin = d.pop("origin")

        scope = RecalledEntryOutputScope.from_dict(d.pop("scope"))

        score = d.pop("score")

        provenance_chain = []
        _provenance_chain = d.pop("provenance_chain")
        for provenance_chain_item_data in _provenance_chain:
            provenance_chain_item = ProvenanceOutput.from_dict(provenance_chain_item_data)

            provenance_chain.append(provenance_chain_item)

        def _parse_multi_actor(data: object) -> None | RecalledEntryOutputMultiActorType0:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                multi_actor_type_0 = RecalledEntryOutputMultiActorType0.from_dict(data)

                return multi_actor_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RecalledEntryOutputMultiActorType0, data)

        multi_actor = _parse_multi_actor(d.pop("multi_actor"))

        freshness = d.pop("freshness")

        entity_ids = []
        _entity_ids = d.pop("entity_ids")
        for entity_ids_item_data in _entity_ids:
            entity_ids_item = UUID(entity_ids_item_data)

            entity_ids.append(entity_ids_item)

        def _parse_valid_from(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                valid_from_type_0 = datetime.datetime.fromisoformat(data)

                return valid_from_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        valid_from = _parse_valid_from(d.pop("valid_from"))

        valid_from_precision = d.pop("valid_from_precision")

        def _parse_valid_to(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                valid_to_type_0 = datetime.datetime.fromisoformat(data)

                return valid_to_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        valid_to = _parse_valid_to(d.pop("valid_to"))

        valid_to_precision = d.pop("valid_to_precision")

        learned_at = datetime.datetime.fromisoformat(d.pop("learned_at"))

        rationale = d.pop("rationale", UNSET)

        recalled_entry_output = cls(
            id=id,
            revision_id=revision_id,
            body=body,
            category=category,
            subject=subject,
            origin=origin,
            scope=scope,
            score=score,
            provenance_chain=provenance_chain,
            multi_actor=multi_actor,
            freshness=freshness,
            entity_ids=entity_ids,
            valid_from=valid_from,
            valid_from_precision=valid_from_precision,
            valid_to=valid_to,
            valid_to_precision=valid_to_precision,
            learned_at=learned_at,
            rationale=rationale,
        )

        recalled_entry_output.additional_properties = d
        return recalled_entry_output

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
