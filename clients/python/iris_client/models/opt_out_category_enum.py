from typing import Literal

OptOutCategoryEnum = Literal[
    "conversation_history", "cross_domain_sharing", "embodied", "memory", "personalization"
]

OPT_OUT_CATEGORY_ENUM_VALUES: set[OptOutCategoryEnum] = {
    "conversation_history",
    "cross_domain_sharing",
    "embodied",
    "memory",
    "personalization",
}


def check_opt_out_category_enum(value: str) -> OptOutCategoryEnum:
    if value in OPT_OUT_CATEGORY_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {OPT_OUT_CATEGORY_ENUM_VALUES!r}")
