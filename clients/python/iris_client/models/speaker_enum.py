from typing import Literal

SpeakerEnum = Literal["assistant", "member", "system"]

SPEAKER_ENUM_VALUES: set[SpeakerEnum] = {
    "assistant",
    "member",
    "system",
}


def check_speaker_enum(value: str) -> SpeakerEnum:
    if value in SPEAKER_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {SPEAKER_ENUM_VALUES!r}")
