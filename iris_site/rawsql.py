"""A model's rows read by one hand-written statement, values as the ORM gives them.

For the few hot reads where building the query through the ORM costs more than the
database spends answering it (every recall's entry loads, the consent ledger every read
gate verifies): the statement is written by hand with the model's own table and column
names, and each value read goes through the converters the ORM itself applies (the
backend's, then the field's ``from_db_value``), so a raw read and an ORM read of one row
agree on every database (on SQLite a datetime arrives as text, a boolean as an integer).
"""

import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from django.db import connection, models

# How many runs of one statement text on a connection before PostgreSQL keeps it prepared.
PREPARE_THRESHOLD = 5


@contextmanager
def bound_cursor() -> Iterator[Any]:
    """A cursor for the hot hand-written statements. On PostgreSQL the server binds its
    parameters (psycopg quotes nothing in Python) and a statement text run
    `PREPARE_THRESHOLD` times on a connection is prepared, so PostgreSQL keeps its plan
    instead of planning it on every recall. The ORM keeps Django's client-side binding:
    its statements are never prepared, and a server-bound statement may carry at most
    65,535 parameters, which an ORM ``pk__in`` over a large member would pass. Wrapped as
    Django wraps its own cursors (errors, execute wrappers, the debug log); elsewhere
    Django's cursor."""
    if connection.vendor != "postgresql":
        with connection.cursor() as cursor:
            yield cursor
        return
    from django.db.backends.postgresql.base import ServerBindingCursor

    # As Django's own `connection.cursor()` does, but for the cursor class.
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    connection.validate_thread_sharing()
    raw = connection.connection
    if raw.prepare_threshold is None:  # Django turns psycopg's preparing off
        raw.prepare_threshold = PREPARE_THRESHOLD  # client-side cursors never prepare
    with connection.wrap_database_errors:
        cursor = ServerBindingCursor(raw)
    if connection.queries_logged:
        wrapped = connection.make_debug_cursor(cursor)
    else:
        wrapped = connection.make_cursor(cursor)
    with wrapped:
        yield wrapped


def one_of(column: str, count: int) -> str:
    """``column`` among ``count`` values, written so that the text does not depend on
    the count where the database allows it: ``= ANY(%s)`` with one array parameter on
    PostgreSQL (see `values_of`), ``IN (%s, …)`` elsewhere."""
    if connection.vendor == "postgresql":
        return f"{column} = ANY(%s)"
    return f"{column} IN ({', '.join(['%s'] * count)})"


def values_of(values: Sequence[Any]) -> list[Any]:
    """The parameters of `one_of` for ``values``."""
    return [list(values)] if connection.vendor == "postgresql" else list(values)


def member_param(model: type[models.Model], member_id) -> Any:
    """``member_id`` as a parameter for ``model``'s ``member`` column (a UUID, however
    it was given), the way the ORM would send it."""
    field = model._meta.get_field("member")
    return field.get_db_prep_value(uuid.UUID(str(member_id)), connection)


class RowReader:
    """The fields ``names`` of ``model``, as a select list and as converted values."""

    def __init__(self, model: type[models.Model], names: Sequence[str]) -> None:
        self.model = model
        self.names = tuple(names)
        self.fields = [model._meta.get_field(name) for name in self.names]
        # Built per connection (each thread has its own): (its operations, converters).
        self._converters: tuple[Any, list[tuple[int, Any, list]]] | None = None
        self._selects: dict[tuple[str, str], str] = {}

    def select(self, alias: str) -> str:
        """``alias."column" AS "name", …`` for every field, in order."""
        key = (connection.vendor, alias)
        if key not in self._selects:
            quote = connection.ops.quote_name
            self._selects[key] = ", ".join(
                f"{alias}.{quote(field.column)} AS {quote(name)}"
                for name, field in zip(self.names, self.fields, strict=True)
            )
        return self._selects[key]

    def _converters_of(self) -> list[tuple[int, Any, list]]:
        ops = connection.ops
        if self._converters is None or self._converters[0] is not ops:
            found = []
            for index, field in enumerate(self.fields):
                column = field.get_col(self.model._meta.db_table)
                functions = ops.get_db_converters(column) + field.get_db_converters(connection)
                if functions:
                    found.append((index, column, functions))
            self._converters = (ops, found)
        return self._converters[1]

    def values(self, row: Sequence[Any], start: int = 0) -> list[Any]:
        """The converted values of the fields, read from ``row`` at ``start`` on."""
        values = list(row[start : start + len(self.names)])
        for index, column, functions in self._converters_of():
            for function in functions:
                values[index] = function(values[index], column, connection)
        return values

    def instance(self, row: Sequence[Any], start: int = 0) -> models.Model:
        """The model instance the ORM would have loaded (`Model.from_db`)."""
        return self.model.from_db(connection.alias, self.names, self.values(row, start))
