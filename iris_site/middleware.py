"""Request guards that must run before any view reads the body."""

from django.conf import settings
from django.http import JsonResponse

from iris_site.api.exceptions import error_body


class RequestSizeLimitMiddleware:
    """413 with the error envelope for bodies over DATA_UPLOAD_MAX_MEMORY_SIZE.

    Django enforces that limit only when `request.body` is read; DRF's parsers read the
    stream directly, so without this a 10 MB JSON body would be parsed in full.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if limit is not None and length > limit:
            return JsonResponse(
                error_body(
                    "request_too_large",
                    f"The request body is {length} bytes; the limit is {limit} bytes.",
                ),
                status=413,
            )
        return self.get_response(request)
