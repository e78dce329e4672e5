"""One exception handler: domain and framework errors → the Iris error envelope.

`{"error": {"code": "<stable_code>", "message": "<human text>", "fields": {...}}}`
"""

import logging

import pydantic
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import DatabaseError, DataError
from django.http import Http404, JsonResponse
from django.views import defaults
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler
from rest_framework.views import set_rollback

from iris_site.errors import DomainError
from iris_site.keys.store import KeyStoreUnavailable

logger = logging.getLogger(__name__)

DRF_CODES = {
    exceptions.NotAuthenticated: "not_authenticated",
    exceptions.AuthenticationFailed: "authentication_failed",
    exceptions.PermissionDenied: "permission_denied",
    exceptions.NotFound: "not_found",
    exceptions.MethodNotAllowed: "method_not_allowed",
    exceptions.NotAcceptable: "not_acceptable",
    exceptions.UnsupportedMediaType: "unsupported_media_type",
    exceptions.Throttled: "rate_limited",
    exceptions.ParseError: "malformed_request",
    exceptions.ValidationError: "invalid",
}


def error_body(code: str, message: str, fields: dict | None = None) -> dict:
    return {"error": {"code": code, "message": message, "fields": fields or {}}}


def _flatten(detail) -> dict[str, list[str]]:
    """DRF's nested `detail` → `{"a.b": ["msg", ...]}`."""
    flat: dict[str, list[str]] = {}

    def walk(prefix: str, value) -> None:
        if isinstance(value, dict):
            for key, inner in value.items():
                walk(f"{prefix}.{key}" if prefix else str(key), inner)
        elif isinstance(value, list) and value and not all(isinstance(v, str) for v in value):
            for index, inner in enumerate(value):
                walk(f"{prefix}.{index}" if prefix else str(index), inner)
        else:
            items = value if isinstance(value, list) else [value]
            flat.setdefault(prefix or "non_field_errors", []).extend(str(v) for v in items)

    walk("", detail)
    return flat


def pydantic_fields(exc: pydantic.ValidationError) -> dict[str, list[str]]:
    fields: dict[str, list[str]] = {}
    for err in exc.errors(include_input=False, include_url=False):
        key = ".".join(str(part) for part in err["loc"]) or "non_field_errors"
        fields.setdefault(key, []).append(err["msg"])
    return fields


KEY_STORE_RETRY_SECONDS = 30
KEY_STORE_UNAVAILABLE = (
    "Iris cannot reach its key store right now, so memory can be neither read nor "
    "written (it is never served or stored unencrypted instead). Retry shortly."
)


def key_store_unavailable(exc: KeyStoreUnavailable) -> None:
    """An operator alert on logger `iris.keys` (`alert="key_store_unavailable"`: counted
    by `iris_site.middleware.SealedFaultHandler`); the store's path only, no content."""
    logging.getLogger("iris.keys").error(
        "the key store is unavailable: %s", exc, extra={"alert": "key_store_unavailable"}
    )


def exception_handler(exc, context):
    if isinstance(exc, KeyStoreUnavailable):
        # Fail closed: 503, whatever the request had begun is rolled back.
        key_store_unavailable(exc)
        set_rollback()
        return Response(
            error_body("key_store_unavailable", KEY_STORE_UNAVAILABLE),
            status=status.HTTP_503_SERVICE_UNAVAILABLE,
            headers={"Retry-After": str(KEY_STORE_RETRY_SECONDS)},
        )
    if isinstance(exc, DomainError):
        return Response(error_body(exc.code, exc.message, exc.fields), status=exc.status_code)
    if isinstance(exc, pydantic.ValidationError):
        return Response(
            error_body("invalid", "The request is invalid.", pydantic_fields(exc)),
            status=status.HTTP_400_BAD_REQUEST,
        )
    if isinstance(exc, DjangoValidationError):
        fields = (
            exc.message_dict if hasattr(exc, "error_dict") else {"non_field_errors": exc.messages}
        )
        return Response(
            error_body("invalid", "The request is invalid.", fields),
            status=status.HTTP_400_BAD_REQUEST,
        )
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
    elif isinstance(exc, DataError):
        # The database refused a value the request carried (out of range, e.g. a time
        # zone offset of -17:45 that PostgreSQL cannot compare): the client's to fix.
        logger.warning("the database refused a value from the request: %s", type(exc).__name__)
        return Response(
            error_body("invalid", "A value in the request is out of the range Iris can use."),
            status=status.HTTP_400_BAD_REQUEST,
        )
    elif isinstance(exc, DatabaseError):
        # A full disk, a lost connection, a lock timeout: the request may be retried.
        logger.exception("database unavailable while handling a request")
        return Response(
            error_body("service_unavailable", "Iris could not complete the request; retry."),
            status=status.HTTP_503_SERVICE_UNAVAILABLE,
        )

    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    code = next((c for cls, c in DRF_CODES.items() if isinstance(exc, cls)), "error")
    if isinstance(exc, exceptions.ValidationError):
        response.data = error_body(code, "The request is invalid.", _flatten(exc.detail))
    else:
        detail = exc.detail if isinstance(exc, exceptions.APIException) else str(exc)
        response.data = error_body(code, str(detail))
    return response


def json_not_found_for_api(request, exception=None):
    """404 in the error envelope under /api/, Django's page elsewhere."""
    if request.path.startswith("/api/"):
        return JsonResponse(error_body("not_found", "Not found."), status=404)
    return defaults.page_not_found(request, exception)


def json_server_error_for_api(request):
    if request.path.startswith("/api/"):
        return JsonResponse(
            error_body("server_error", "Something went wrong on our side."), status=500
        )
    return defaults.server_error(request)
