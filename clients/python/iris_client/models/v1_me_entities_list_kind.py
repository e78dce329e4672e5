from typing import Literal

V1MeEntitiesListKind = Literal["person", "self", "subject"]

V1_ME_ENTITIES_LIST_KIND_VALUES: set[V1MeEntitiesListKind] = {
    "person",
    "self",
    "subject",
}


def check_v1_me_entities_list_kind(value: str) -> V1MeEntitiesListKind:
    if value in V1_ME_ENTITIES_LIST_KIND_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {V1_ME_ENTITIES_LIST_KIND_VALUES!r}"
    )
