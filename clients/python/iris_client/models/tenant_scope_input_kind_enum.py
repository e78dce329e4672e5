from typing import Literal

TenantScopeInputKindEnum = Literal["tenant"]

TENANT_SCOPE_INPUT_KIND_ENUM_VALUES: set[TenantScopeInputKindEnum] = {
    "tenant",
}


def check_tenant_scope_input_kind_enum(value: str) -> TenantScopeInputKindEnum:
    if value in TENANT_SCOPE_INPUT_KIND_ENUM_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {TENANT_SCOPE_INPUT_KIND_ENUM_VALUES!r}"
    )
