from typing import Literal

ListContinuationsSurface = Literal["living-scene", "metis", "nisaba", "psyche", "shell", "tara"]

LIST_CONTINUATIONS_SURFACE_VALUES: set[ListContinuationsSurface] = {
    "living-scene",
    "metis",
    "nisaba",
    "psyche",
    "shell",
    "tara",
}


def check_list_continuations_surface(value: str) -> ListContinuationsSurface:
    if value in LIST_CONTINUATIONS_SURFACE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {LIST_CONTINUATIONS_SURFACE_VALUES!r}"
    )
