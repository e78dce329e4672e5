from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import exceptions, pagination


class CursorPagination(pagination.CursorPagination):
    """Stable pagination over append-heavy tables: `?cursor=` with `next`/`previous` links.

    A cursor is opaque, but it is still client input: one that does not decode, or whose
    position does not fit the ordering field (DRF hands it straight to `filter()`, a 500
    on an integer field), is a 400 on `cursor`, not DRF's 404.
    """

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200
    ordering = "-created_at"

    def paginate_queryset(self, queryset, request, view=None):
        self._model = queryset.model
        return super().paginate_queryset(queryset, request, view)

    def decode_cursor(self, request):
        try:
            cursor = super().decode_cursor(request)
        except exceptions.NotFound as exc:
            raise self._invalid() from exc
        if cursor is not None and cursor.position is not None:
            field = self._model._meta.get_field(self.ordering[0].lstrip("-"))
            try:
                field.to_python(cursor.position)
            except DjangoValidationError as exc:
                raise self._invalid() from exc
        return cursor

    def _invalid(self) -> exceptions.ValidationError:
        return exceptions.ValidationError({self.cursor_query_param: [self.invalid_cursor_message]})
