from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.audit_envelope_output import AuditEnvelopeOutput
    from ..models.recalled_entity_output import RecalledEntityOutput
    from ..models.recalled_entry_output import RecalledEntryOutput
    from ..models.recalled_relationship_output import RecalledRelationshipOutput


T = TypeVar("T", bound="RecallOutput")


@_attrs_define
class RecallOutput:
    """
    Attributes:
        entries (list[RecalledEntryOutput]):
        entities (list[RecalledEntityOutput]): The entities the returned entries are about (never a retired one).
        relationships (list[RecalledRelationshipOutput]): The relationships the returned entries state that held then
            (`as_of`, else now).
        audit_envelope (AuditEnvelopeOutput):
    """

    entries: list[RecalledEntryOutput]
    entities: list[RecalledEntityOutput]
    relationships: list[RecalledRelationshipOutput]
    audit_envelope: AuditEnvelopeOutput
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        entries = []
        for entries_item_data in self.entries:
            entries_item = entries_item_data.to_dict()
            entries.append(entries_item)

        entities = []
        for entities_item_data in self.entities:
            entities_item = entities_item_data.to_dict()
            entities.append(entities_item)

        relationships = []
        for relationships_item_data in self.relationships:
            relationships_item = relationships_item_data.to_dict()
            relationships.append(relationships_item)

        audit_envelope = self.audit_envelope.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "entries": entries,
                "entities": entities,
                "relationships": relationships,
                "audit_envelope": audit_envelope,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.audit_envelope_output import AuditEnvelopeOutput
        from ..models.recalled_entity_output import RecalledEntityOutput
        from ..models.recalled_entry_output import RecalledEntryOutput
        from ..models.recalled_relationship_output import RecalledRelationshipOutput

        d = dict(src_dict)
        entries = []
        _entries = d.pop("entries")
        for entries_item_data in _entries:
            entries_item = RecalledEntryOutput.from_dict(entries_item_data)

            entries.append(entries_item)

        entities = []
        _entities = d.pop("entities")
        for entities_item_data in _entities:
            entities_item = RecalledEntityOutput.from_dict(entities_item_data)

            entities.append(entities_item)

        relationships = []
        _relationships = d.pop("relationships")
        for relationships_item_data in _relationships:
            relationships_item = RecalledRelationshipOutput.from_dict(relationships_item_data)

            relationships.append(relationships_item)

        audit_envelope = AuditEnvelopeOutput.from_dict(d.pop("audit_envelope"))

        recall_output = cls(
            entries=entries,
            entities=entities,
            relationships=relationships,
            audit_envelope=audit_envelope,
        )

        recall_output.additional_properties = d
        return recall_output

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
