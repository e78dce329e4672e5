from rest_framework import pagination


class CursorPagination(pagination.CursorPagination):
    """Stable pagination over append-heavy tables: `?cursor=` with `next`/`previous` links."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200
    ordering = "-created_at"
