from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.entity_event_output import EntityEventOutput
    from ..models.entity_output import EntityOutput
    from ..models.memory_entry import MemoryEntry
    from ..models.relationship_output import RelationshipOutput


T = TypeVar("T", bound="EntityDetailOutput")


@_attrs_define
class EntityDetailOutput:
    """
    Attributes:
        entity (EntityOutput):
        entries (list[MemoryEntry]):
        relationships (list[RelationshipOutput]):
        history (list[EntityEventOutput]):
    """

    entity: EntityOutput
    entries: list[MemoryEntry]
    relationships: list[RelationshipOutput]
    history: list[EntityEventOutput]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        entity = self.entity.to_dict()

        entries = []
        for entries_item_data in self.entries:
            entries_item = entries_item_data.to_dict()
            entries.append(entries_item)

        relationships = []
        for relationships_item_data in self.relationships:
            relationships_item = relationships_item_data.to_dict()
            relationships.append(relationships_item)

        history = []
        for history_item_data in self.history:
            history_item = history_item_data.to_dict()
            history.append(history_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "entity": entity,
                "entries": entries,
                "relationships": relationships,
                "history": history,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.entity_event_output import EntityEventOutput
        from ..models.entity_output import EntityOutput
        from ..models.memory_entry import MemoryEntry
        from ..models.relationship_output import RelationshipOutput

        d = dict(src_dict)
        entity = EntityOutput.from_dict(d.pop("entity"))

        entries = []
        _entries = d.pop("entries")
        for entries_item_data in _entries:
            entries_item = MemoryEntry.from_dict(entries_item_data)

            entries.append(entries_item)

        relationships = []
        _relationships = d.pop("relationships")
        for relationships_item_data in _relationships:
            relationships_item = RelationshipOutput.from_dict(relationships_item_data)

            relationships.append(relationships_item)

        history = []
        _history = d.pop("history")
        for history_item_data in _history:
            history_item = EntityEventOutput.from_dict(history_item_data)

            history.append(history_item)

        entity_detail_output = cls(
            entity=entity,
            entries=entries,
            relationships=relationships,
            history=history,
        )

        entity_detail_output.additional_properties = d
        return entity_detail_output

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
