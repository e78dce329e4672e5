"""A model's rows read by one hand-written statement, values as the ORM gives them.

For the few hot reads where building the query through the ORM costs more than the
database spends answering it (every recall's entry loads, the consent ledger every read
gate verifies): the statement is written by hand with the model's own table and column
names, run through Django's own cursor (`connection.cursor()`), and each value read goes
through the converters the ORM itself applies (the backend's, then the field's
``from_db_value``), so a raw read and an ORM read of one row agree on every database (on
SQLite a datetime arrives as text, a boolean as an integer).

Nothing is prepared: statements are bound on the client, as everywhere in Django. Keeping
the hot ones prepared on PostgreSQL (a psycopg server-binding cursor) saved 0.4 ms of a
12 ms recall at 10k entries, within this machine's noise (docs/recall.md, 2026-12-07),
for a private class of Django's backend; Django's documented switch
(`OPTIONS["server_side_binding"]`) binds every ORM statement too, whose `pk__in` lists
can pass PostgreSQL's 65,535 parameters.
"""

import uuid
from collections.abc import Sequence
from typing import Any

from django.db import connection, models


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
