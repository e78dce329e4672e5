"""A typed client of the Iris API.

`Iris` is the client (bearer token, idempotency keys, retries, typed errors); the
operations are in `iris_client.api.<tag>` and the models in `iris_client.models`,
generated from the OpenAPI schema (`clients/python/generate.py`).
"""

from iris_client.exceptions import (
    Conflict,
    Forbidden,
    Gone,
    InvalidRequest,
    IrisError,
    NotFound,
    RateLimited,
    Refused,
    TooLarge,
    Unauthenticated,
    Unavailable,
)
from iris_client.pagination import achange_pages, apages, change_pages, next_cursor, pages
from iris_client.session import Iris, default_retry

__all__ = [
    "Conflict",
    "Forbidden",
    "Gone",
    "InvalidRequest",
    "Iris",
    "IrisError",
    "NotFound",
    "RateLimited",
    "Refused",
    "TooLarge",
    "Unauthenticated",
    "Unavailable",
    "achange_pages",
    "apages",
    "change_pages",
    "default_retry",
    "next_cursor",
    "pages",
]
