from typing import Literal

DataRightsKindEnum = Literal["access", "delete", "export"]

DATA_RIGHTS_KIND_ENUM_VALUES: set[DataRightsKindEnum] = {
    "access",
    "delete",
    "export",
}


def check_data_rights_kind_enum(value: str) -> DataRightsKindEnum:
    if value in DATA_RIGHTS_KIND_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {DATA_RIGHTS_KIND_ENUM_VALUES!r}")
