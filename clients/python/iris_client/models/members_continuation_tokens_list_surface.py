from typing import Literal

MembersContinuationTokensListSurface = Literal[
    "living-scene", "metis", "nisaba", "psyche", "shell", "tara"
]

MEMBERS_CONTINUATION_TOKENS_LIST_SURFACE_VALUES: set[MembersContinuationTokensListSurface] = {
    "living-scene",
    "metis",
    "nisaba",
    "psyche",
    "shell",
    "tara",
}


def check_members_continuation_tokens_list_surface(
    value: str,
) -> MembersContinuationTokensListSurface:
    if value in MEMBERS_CONTINUATION_TOKENS_LIST_SURFACE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {MEMBERS_CONTINUATION_TOKENS_LIST_SURFACE_VALUES!r}"
    )
