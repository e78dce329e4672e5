from typing import Literal

ProvenanceKindEnum = Literal[
    "inference-batch",
    "manual-import",
    "notebook-attachment",
    "pose-sample",
    "profile-promotion",
    "scene-event",
    "session-summary",
    "session-turn",
]

PROVENANCE_KIND_ENUM_VALUES: set[ProvenanceKindEnum] = {
    "inference-batch",
    "manual-import",
    "notebook-attachment",
    "pose-sample",
    "profile-promotion",
    "scene-event",
    "session-summary",
    "session-turn",
}


def check_provenance_kind_enum(value: str) -> ProvenanceKindEnum:
    if value in PROVENANCE_KIND_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {PROVENANCE_KIND_ENUM_VALUES!r}")
