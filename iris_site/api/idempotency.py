"""The OpenAPI side of `Idempotency-Key`: one header parameter and the two answers it
adds (409, 410), documented once and attached to every idempotent operation by the
`iris_site.idempotency.idempotent` decorator."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from rest_framework.settings import api_settings

from iris_site.api.schema import ERROR_DESCRIPTIONS, ErrorEnvelopeSerializer
from iris_site.models.idempotency import IDEMPOTENCY_TTL, KEY_MAX_LENGTH

_TTL_HOURS = int(IDEMPOTENCY_TTL.total_seconds() // 3600)

IDEMPOTENCY_KEY_PARAMETER = OpenApiParameter(
    "Idempotency-Key",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    required=False,
    description=(
        f"Optional; 1 to {KEY_MAX_LENGTH} printable characters, no spaces (a UUID does). "
        "A retry with the same key and the same request (method, path, query and JSON "
        "body) stores nothing new and gets the first answer again: the same status, the "
        "resource as it is now, and the header `Idempotent-Replayed: true`. The same key "
        "with another request is 409 `idempotency-key-reused`; while the first request "
        "still runs, 409 `idempotency-in-progress` with `Retry-After`; when what it "
        "created has since been forgotten or erased, 410 `idempotency-resource-gone` "
        "(it is never written again). Keys are per caller and endpoint and are "
        f"remembered for {_TTL_HOURS} hours; an answer that was not a success is not "
        "remembered, so a retry runs again. Without the header the call behaves as always."
    ),
)

IDEMPOTENCY_RESPONSES = {
    409: OpenApiResponse(
        ErrorEnvelopeSerializer,
        description=ERROR_DESCRIPTIONS[409]
        + " With `Idempotency-Key`: `idempotency-key-reused` (another request used this "
        "key) or `idempotency-in-progress` (the first request is still running; retry "
        "after `Retry-After` seconds).",
    ),
    410: OpenApiResponse(
        ErrorEnvelopeSerializer,
        description="`idempotency-resource-gone`: what this key's request created has "
        "since been forgotten or erased; it is not created again.",
    ),
}


def document_idempotency(handler) -> None:
    """Add the header and the 409/410 answers to the operation of `handler` (a view
    method). Applied above the method's own `@extend_schema`, it extends that one."""
    kwargs = dict(getattr(handler, "kwargs", None) or {})
    base = kwargs.get("schema") or api_settings.DEFAULT_SCHEMA_CLASS

    class IdempotentSchema(base):
        def get_override_parameters(self):
            return [*super().get_override_parameters(), IDEMPOTENCY_KEY_PARAMETER]

        def get_response_serializers(self):
            responses = super().get_response_serializers()
            if isinstance(responses, dict):
                return {**responses, **IDEMPOTENCY_RESPONSES}
            return responses

    kwargs["schema"] = IdempotentSchema
    handler.kwargs = kwargs
