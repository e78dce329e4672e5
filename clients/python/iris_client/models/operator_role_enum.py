from typing import Literal

OperatorRoleEnum = Literal["admin", "legal", "support", "t&s"]

OPERATOR_ROLE_ENUM_VALUES: set[OperatorRoleEnum] = {
    "admin",
    "legal",
    "support",
    "t&s",
}


def check_operator_role_enum(value: str) -> OperatorRoleEnum:
    if value in OPERATOR_ROLE_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {OPERATOR_ROLE_ENUM_VALUES!r}")
