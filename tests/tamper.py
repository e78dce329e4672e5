"""Test-only tampering with append-only rows, the way someone owning the tables would.

No runtime path can rewrite an append-only row (`iris_site.appendonly`); tests that
prove tampering is detected act as the table owner does: switch the guard off with
`ALTER TABLE ... DISABLE TRIGGER` (PostgreSQL, owner only) or drop the native triggers
(SQLite), inside the caller's transaction, and put them back before it ends.
"""

import contextlib
from collections.abc import Iterator

from django.db import connection, models

from iris_site.appendonly import sqlite_set_triggers


@contextlib.contextmanager
def owner_tamper(*model_classes: type[models.Model]) -> Iterator[None]:
    assert connection.in_atomic_block, "tamper inside transaction.atomic()"
    if connection.vendor != "postgresql":
        sqlite_set_triggers(list(model_classes), enabled=False)
        try:
            yield
        finally:
            sqlite_set_triggers(list(model_classes), enabled=True)
        return
    with connection.cursor() as cursor:
        # ALTER TABLE waits for no deferred checks: run the pending ones (foreign keys of
        # rows this transaction wrote) now.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        for model in model_classes:
            cursor.execute(f'ALTER TABLE "{model._meta.db_table}" DISABLE TRIGGER USER')
    yield
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        for model in model_classes:
            cursor.execute(f'ALTER TABLE "{model._meta.db_table}" ENABLE TRIGGER USER')
        cursor.execute("SET CONSTRAINTS ALL DEFERRED")
