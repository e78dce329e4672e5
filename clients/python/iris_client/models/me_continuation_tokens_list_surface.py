from typing import Literal

MeContinuationTokensListSurface = Literal[
    "living-scene", "metis", "nisaba", "psyche", "shell", "tara"
]

ME_CONTINUATION_TOKENS_LIST_SURFACE_VALUES: set[MeContinuationTokensListSurface] = {
    "living-scene",
    "metis",
    "nisaba",
    "psyche",
    "shell",
    "tara",
}


def check_me_continuation_tokens_list_surface(value: str) -> MeContinuationTokensListSurface:
    if value in ME_CONTINUATION_TOKENS_LIST_SURFACE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {ME_CONTINUATION_TOKENS_LIST_SURFACE_VALUES!r}"
    )
