from typing import Literal

V1MeEntitiesListState = Literal["active", "archived"]

V1_ME_ENTITIES_LIST_STATE_VALUES: set[V1MeEntitiesListState] = {
    "active",
    "archived",
}


def check_v1_me_entities_list_state(value: str) -> V1MeEntitiesListState:
    if value in V1_ME_ENTITIES_LIST_STATE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {V1_ME_ENTITIES_LIST_STATE_VALUES!r}"
    )
