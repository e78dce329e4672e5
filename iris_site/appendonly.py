"""Append-only tables, enforced by the database on both engines.

PostgreSQL: each model declares `append_only_triggers()` in `Meta.triggers`
(django-pgtrigger installs them). SQLite: pgtrigger installs nothing there, so each
app's migration adds `SQLiteAppendOnly(<model>)`, which creates native triggers.

The one sanctioned way around them is `purge_bypass(...)`: the data-rights hard
delete and the test-only corruption helpers use it, nothing else.
"""

import contextlib
from collections.abc import Iterator

import pgtrigger
from django.db import connection, models
from django.db.migrations.operations.base import Operation

TRIGGER_NAME = "append_only"


def append_only_triggers() -> list[pgtrigger.Trigger]:
    return [pgtrigger.Protect(name=TRIGGER_NAME, operation=pgtrigger.Update | pgtrigger.Delete)]


def _sqlite_trigger_sql(table: str) -> list[str]:
    return [
        f'CREATE TRIGGER IF NOT EXISTS "{table}_{TRIGGER_NAME}_{op.lower()}" '
        f'BEFORE {op} ON "{table}" '
        f"BEGIN SELECT RAISE(ABORT, 'append-only: {table} rejects {op}'); END"
        for op in ("UPDATE", "DELETE")
    ]


def _sqlite_drop_sql(table: str) -> list[str]:
    return [
        f'DROP TRIGGER IF EXISTS "{table}_{TRIGGER_NAME}_{op.lower()}"'
        for op in ("update", "delete")
    ]


class SQLiteAppendOnly(Operation):
    """Migration operation: native UPDATE/DELETE-rejecting triggers on SQLite only."""

    reversible = True
    reduces_to_sql = True

    def __init__(self, model_name: str) -> None:
        self.model_name = model_name

    def state_forwards(self, app_label, state) -> None:
        pass

    def _table(self, app_label, state) -> str:
        return state.apps.get_model(app_label, self.model_name)._meta.db_table

    def database_forwards(self, app_label, schema_editor, from_state, to_state) -> None:
        if schema_editor.connection.vendor == "sqlite":
            for sql in _sqlite_trigger_sql(self._table(app_label, to_state)):
                schema_editor.execute(sql)

    def database_backwards(self, app_label, schema_editor, from_state, to_state) -> None:
        if schema_editor.connection.vendor == "sqlite":
            for sql in _sqlite_drop_sql(self._table(app_label, from_state)):
                schema_editor.execute(sql)

    def describe(self) -> str:
        return f"Append-only triggers on {self.model_name} (SQLite)"

    def deconstruct(self):
        return self.__class__.__qualname__, [self.model_name], {}


def sqlite_set_triggers(model_classes: list[type[models.Model]], *, enabled: bool) -> None:
    """Create or drop the SQLite triggers (the test flush needs them gone)."""
    if connection.vendor != "sqlite":
        return
    with connection.cursor() as cursor:
        for model in model_classes:
            table = model._meta.db_table
            for sql in _sqlite_trigger_sql(table) if enabled else _sqlite_drop_sql(table):
                cursor.execute(sql)


def append_only_models() -> list[type[models.Model]]:
    from django.apps import apps

    return [
        model
        for model in apps.get_models()
        if any(t.name == TRIGGER_NAME for t in getattr(model._meta, "triggers", []))
    ]


@contextlib.contextmanager
def purge_bypass(*model_classes: type[models.Model]) -> Iterator[None]:
    """Lift the append-only guard for these models inside the caller's transaction.

    Callers must already be inside `transaction.atomic()`: on SQLite the dropped
    triggers come back before commit, on PostgreSQL pgtrigger's ignore is scoped.
    """
    if not connection.in_atomic_block:
        raise RuntimeError("purge_bypass must run inside transaction.atomic()")
    if connection.vendor == "postgresql":
        uris = [f"{m._meta.app_label}.{m._meta.object_name}:{TRIGGER_NAME}" for m in model_classes]
        with pgtrigger.ignore(*uris):
            yield
        return
    sqlite_set_triggers(list(model_classes), enabled=False)
    try:
        yield
    finally:
        sqlite_set_triggers(list(model_classes), enabled=True)
