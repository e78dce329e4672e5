from typing import Literal

TermsVersionEnum = Literal["2026-11"]

TERMS_VERSION_ENUM_VALUES: set[TermsVersionEnum] = {
    "2026-11",
}


def check_terms_version_enum(value: str) -> TermsVersionEnum:
    if value in TERMS_VERSION_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {TERMS_VERSION_ENUM_VALUES!r}")
