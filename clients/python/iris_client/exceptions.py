"""Every error answer as an exception carrying the Iris error envelope:
`{"error": {"code", "message", "fields"}}` and the HTTP status."""

import httpx


class IrisError(Exception):
    """An error answer from Iris. `code` is the envelope's stable code (e.g.
    `sensitive-category-without-consent`), `fields` its per-field messages."""

    def __init__(
        self, status: int, code: str, message: str, fields: dict[str, list[str]], response
    ) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.fields = fields
        self.response: httpx.Response = response


class InvalidRequest(IrisError):
    """400: the request is invalid (`fields` says where)."""


class Unauthenticated(IrisError):
    """401: no token, or a wrong, expired or revoked one."""


class Forbidden(IrisError):
    """403: authenticated, but not allowed (e.g. `consumer-not-allowed-for-scope`)."""


class NotFound(IrisError):
    """404: not found, or not yours."""


class Conflict(IrisError):
    """409: an illegal transition, a conflict, or an `Idempotency-Key` reused or in use."""


class Gone(IrisError):
    """410: what an `Idempotency-Key`'s request created has since been forgotten."""


class TooLarge(IrisError):
    """413: the request is too large."""


class Refused(IrisError):
    """422: a valid request a memory policy refuses (`code` is the reason, e.g. `paused`)."""


class RateLimited(IrisError):
    """429 after the retries: the caller's budget is spent."""


class Unavailable(IrisError):
    """503 after the retries (or on a write that cannot be retried safely)."""


BY_STATUS: dict[int, type[IrisError]] = {
    400: InvalidRequest,
    401: Unauthenticated,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    410: Gone,
    413: TooLarge,
    422: Refused,
    429: RateLimited,
    503: Unavailable,
}


def error_for(response: httpx.Response) -> IrisError:
    """The exception for an error answer (its body already read). An answer without the
    envelope (a proxy's page) gets the code `http-<status>` and the reason phrase."""
    status = response.status_code
    try:
        error = response.json()["error"]
        code, message = str(error["code"]), str(error["message"])
        fields = dict(error.get("fields") or {})
    except (ValueError, KeyError, TypeError):
        code, fields = f"http-{status}", {}
        message = response.reason_phrase or f"HTTP {status}"
    return BY_STATUS.get(status, IrisError)(status, code, message, fields, response)
