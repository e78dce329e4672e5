from typing import Literal

ContinuitySurfaceEnum = Literal["living-scene", "metis", "nisaba", "psyche", "shell", "tara"]

CONTINUITY_SURFACE_ENUM_VALUES: set[ContinuitySurfaceEnum] = {
    "living-scene",
    "metis",
    "nisaba",
    "psyche",
    "shell",
    "tara",
}


def check_continuity_surface_enum(value: str) -> ContinuitySurfaceEnum:
    if value in CONTINUITY_SURFACE_ENUM_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {CONTINUITY_SURFACE_ENUM_VALUES!r}"
    )
