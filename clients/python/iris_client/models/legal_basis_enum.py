from typing import Literal

LegalBasisEnum = Literal[
    "consent",
    "contract",
    "legal_obligation",
    "legitimate_interests",
    "public_task",
    "vital_interests",
]

LEGAL_BASIS_ENUM_VALUES: set[LegalBasisEnum] = {
    "consent",
    "contract",
    "legal_obligation",
    "legitimate_interests",
    "public_task",
    "vital_interests",
}


def check_legal_basis_enum(value: str) -> LegalBasisEnum:
    if value in LEGAL_BASIS_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {LEGAL_BASIS_ENUM_VALUES!r}")
