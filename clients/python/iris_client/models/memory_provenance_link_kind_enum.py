from typing import Literal

MemoryProvenanceLinkKindEnum = Literal[
    "inference-batch",
    "manual-import",
    "notebook-attachment",
    "pose-sample",
    "profile-promotion",
    "scene-event",
    "session-summary",
    "session-turn",
]

MEMORY_PROVENANCE_LINK_KIND_ENUM_VALUES: set[MemoryProvenanceLinkKindEnum] = {
    "inference-batch",
    "manual-import",
    "notebook-attachment",
    "pose-sample",
    "profile-promotion",
    "scene-event",
    "session-summary",
    "session-turn",
}


def check_memory_provenance_link_kind_enum(value: str) -> MemoryProvenanceLinkKindEnum:
    if value in MEMORY_PROVENANCE_LINK_KIND_ENUM_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {MEMORY_PROVENANCE_LINK_KIND_ENUM_VALUES!r}"
    )
