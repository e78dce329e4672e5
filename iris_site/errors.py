"""Typed domain errors. Every app raises these; one handler maps them to HTTP."""

from collections.abc import Mapping, Sequence


class DomainError(Exception):
    """A refusal with a stable machine code and an HTTP status."""

    status_code = 400
    code = "invalid"
    default_message = "The request is invalid."

    def __init__(
        self,
        message: str | None = None,
        *,
        code: str | None = None,
        fields: Mapping[str, Sequence[str]] | None = None,
    ) -> None:
        self.message = message or self.default_message
        if code is not None:
            self.code = code
        self.fields = {key: list(value) for key, value in (fields or {}).items()}
        super().__init__(self.message)


class InvalidInput(DomainError):
    status_code = 400
    code = "invalid"


class NotPermitted(DomainError):
    status_code = 403
    code = "permission_denied"
    default_message = "You are not allowed to do this."


class NotFound(DomainError):
    """Not there, or not yours: the two are indistinguishable on purpose."""

    status_code = 404
    code = "not_found"
    default_message = "Not found."


class Conflict(DomainError):
    """An illegal transition, a duplicate, or something already done."""

    status_code = 409
    code = "conflict"
    default_message = "The request conflicts with the current state."


class PolicyRefusal(DomainError):
    """A valid request that a memory policy refuses; `code` is the seed's reason."""

    status_code = 422
    code = "policy_refused"
    default_message = "A memory policy refuses this request."
