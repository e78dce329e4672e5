from typing import Literal

SurfaceEnum = Literal["living-scene", "metis", "nisaba", "psyche", "shell", "tara"]

SURFACE_ENUM_VALUES: set[SurfaceEnum] = {
    "living-scene",
    "metis",
    "nisaba",
    "psyche",
    "shell",
    "tara",
}


def check_surface_enum(value: str) -> SurfaceEnum:
    if value in SURFACE_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {SURFACE_ENUM_VALUES!r}")
