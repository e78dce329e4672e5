from typing import Literal

DataRightsVerificationMethodEnum = Literal[
    "court-order", "email-link", "operator-signoff", "phone-otp", "session-token"
]

DATA_RIGHTS_VERIFICATION_METHOD_ENUM_VALUES: set[DataRightsVerificationMethodEnum] = {
    "court-order",
    "email-link",
    "operator-signoff",
    "phone-otp",
    "session-token",
}


def check_data_rights_verification_method_enum(value: str) -> DataRightsVerificationMethodEnum:
    if value in DATA_RIGHTS_VERIFICATION_METHOD_ENUM_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {DATA_RIGHTS_VERIFICATION_METHOD_ENUM_VALUES!r}"
    )
