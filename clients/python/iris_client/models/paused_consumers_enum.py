from typing import Literal

PausedConsumersEnum = Literal[
    "arete",
    "assistant",
    "living-scene",
    "metis",
    "nisaba",
    "notebook",
    "nyx",
    "psyche",
    "shell",
    "studio",
    "tara",
    "veritas",
]

PAUSED_CONSUMERS_ENUM_VALUES: set[PausedConsumersEnum] = {
    "arete",
    "assistant",
    "living-scene",
    "metis",
    "nisaba",
    "notebook",
    "nyx",
    "psyche",
    "shell",
    "studio",
    "tara",
    "veritas",
}


def check_paused_consumers_enum(value: str) -> PausedConsumersEnum:
    if value in PAUSED_CONSUMERS_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {PAUSED_CONSUMERS_ENUM_VALUES!r}")
