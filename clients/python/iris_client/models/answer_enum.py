from typing import Literal

AnswerEnum = Literal["confirm", "forget", "keep"]

ANSWER_ENUM_VALUES: set[AnswerEnum] = {
    "confirm",
    "forget",
    "keep",
}


def check_answer_enum(value: str) -> AnswerEnum:
    if value in ANSWER_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {ANSWER_ENUM_VALUES!r}")
