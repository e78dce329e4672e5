"""OpenAPI pieces shared by every app: the error envelope and its responses."""

from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers


class ErrorDetailSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="Stable machine-readable code.")
    message = serializers.CharField(help_text="Human-readable explanation.")
    fields = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text="Per-field problems, keyed by field path.",
    )


class ErrorEnvelopeSerializer(serializers.Serializer):
    error = ErrorDetailSerializer()


ERROR_DESCRIPTIONS = {
    400: "Invalid input.",
    401: "No or invalid credentials.",
    403: "Authenticated, but not allowed.",
    404: "Not found, or not yours.",
    406: "The Accept header asks for a format the API does not produce (JSON).",
    409: "Conflicts with the current state.",
    413: "Request body too large.",
    422: "Refused by a memory policy.",
    429: "Too many requests; retry after the Retry-After seconds.",
    503: "Temporarily unavailable; retry.",
}


def error_responses(*statuses: int) -> dict[int, OpenApiResponse]:
    """Document the envelope for these statuses.

    400, 401, 403, 406, 429 and 503 are added to every call: any request may carry a path
    or query string that is not UTF-8 text (refused by `RequestEncodingMiddleware`), come
    without valid credentials or from the wrong kind of caller, accept no JSON, be over
    its rate limit, or meet a database that cannot answer (a full disk, a timeout).
    """
    wanted = sorted({400, 401, 403, 406, 429, 503, *statuses})
    return {
        code: OpenApiResponse(ErrorEnvelopeSerializer, description=ERROR_DESCRIPTIONS[code])
        for code in wanted
    }


def document_retry_after(result, generator, request, public):
    """drf-spectacular post-processing hook: every 429 says how long to wait."""
    for item in result.get("paths", {}).values():
        for operation in item.values():
            limited = isinstance(operation, dict) and operation.get("responses", {}).get("429")
            if limited:
                limited.setdefault("headers", {})["Retry-After"] = {
                    "description": "Seconds to wait before retrying.",
                    "schema": {"type": "integer", "minimum": 1},
                }
    return result
