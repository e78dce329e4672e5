"""Append-only tables, enforced by the database on both engines.

PostgreSQL: each model declares `append_only_triggers()` in `Meta.triggers`
(django-pgtrigger installs them). The guard is compiled without pgtrigger's
`pgtrigger.ignore` hook, so no session variable switches it off; disabling it
(`ALTER TABLE ... DISABLE TRIGGER`, `session_replication_role`) needs the table owner
or a superuser. SQLite: pgtrigger installs nothing there, so each app's migration adds
`SQLiteAppendOnly(<model>)`, which creates native triggers.

The one sanctioned way around them is `purge_bypass(...)`, used by erasure and the data-
rights hard delete. On PostgreSQL it opens a *purge permit* for the current transaction
through `iris_purge.permit_open`, a `SECURITY DEFINER` function of the table owner in a
schema closed to PUBLIC: only the owner and the roles granted it by name (those that
erase: docs/design.md, "Append-only tables") can open one. A permit lets DELETE through
on tables declared `purgeable` (on the consent ledger whole consent types only, checked
at commit) and, where declared, an UPDATE that changes nothing but the chain columns
(the ledger's re-chain after a purge). It never lets content be rewritten, and tables
that are not purgeable (audit, DSAR trail, inspection trail) refuse every UPDATE and
DELETE whatever the role holds short of ownership.
"""

import contextlib
from collections.abc import Iterator

import pgtrigger
from django.db import connection, models
from django.db.migrations.operations.base import Operation
from pgtrigger import compiler, features, utils

TRIGGER_NAME = "append_only"


class GuardSql(compiler.UpsertTriggerSql):
    """pgtrigger's installation SQL without its `pgtrigger.ignore` check.

    The function also pins its own search_path, so a role that can create objects in
    some schema cannot shadow the functions or operators the guard calls.
    """

    def get_template(self) -> str:
        return """
            CREATE OR REPLACE FUNCTION {pgid}()
            RETURNS TRIGGER
            SET search_path = pg_catalog, pg_temp
            AS $$
                {declare}
                BEGIN
                    {func}
                END;
            $$ LANGUAGE plpgsql;

            DROP TRIGGER IF EXISTS {pgid} ON {table};
            CREATE {constraint} TRIGGER {pgid}
                {when} {operation} ON {table}
                {timing}
                {referencing}
                FOR EACH {level} {condition}
                EXECUTE PROCEDURE {execute};

            COMMENT ON TRIGGER {pgid} ON {table} IS '{hash}';
        """


def _guard_func(*, purgeable: bool, chain_columns: tuple[str, ...]) -> str:
    permitted = f"{utils.quote(features.schema())}.iris_purge_permitted(TG_TABLE_NAME)"
    lines = []
    if purgeable:
        lines.append(f"IF TG_OP = 'DELETE' AND {permitted} THEN RETURN OLD; END IF;")
    if chain_columns:
        columns = "ARRAY[" + ", ".join(f"'{c}'" for c in chain_columns) + "]"
        lines.append(
            f"IF TG_OP = 'UPDATE' AND {permitted} AND "
            f"(to_jsonb(NEW) - {columns}) = (to_jsonb(OLD) - {columns}) THEN RETURN NEW; END IF;"
        )
    lines.append("RAISE EXCEPTION 'append-only: % rejects %', TG_TABLE_NAME, TG_OP;")
    return " ".join(lines)


class AppendOnlyGuard(pgtrigger.Trigger):
    """BEFORE UPDATE OR DELETE guard that no session setting can switch off."""

    when = pgtrigger.Before
    operation = pgtrigger.Update | pgtrigger.Delete

    def __init__(self, *, purgeable: bool, chain_columns: tuple[str, ...]) -> None:
        if chain_columns and not purgeable:
            raise ValueError("Only a purgeable table has chain columns to re-chain")
        super().__init__(
            name=TRIGGER_NAME,
            func=_guard_func(purgeable=purgeable, chain_columns=chain_columns),
        )
        self.purgeable = purgeable

    def compile(self, model) -> compiler.Trigger:
        compiled = super().compile(model)
        return compiler.Trigger(name=compiled.name, sql=GuardSql(**compiled.sql.kwargs))


class WholeGroupPurge(pgtrigger.Trigger):
    """Deferred to commit: a purge removes every row of a group or none of them.

    On the consent ledger the group is (member, consent type): removing only a
    withdrawal would bring the grant before it back into force, removing the whole type
    leaves nothing consented."""

    when = pgtrigger.After
    operation = pgtrigger.Delete
    timing = pgtrigger.Deferred

    # The group's two columns come as trigger arguments; the table is named through the
    # trigger's own schema, since the guard's search_path is pinned.
    func = (
        "EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I.%I AS t "
        "WHERE t.%I = ($1).%I AND t.%I = ($1).%I)', TG_TABLE_SCHEMA, TG_TABLE_NAME, "
        "TG_ARGV[0], TG_ARGV[0], TG_ARGV[1], TG_ARGV[1]) INTO remaining USING OLD; "
        "IF remaining THEN "
        "RAISE EXCEPTION 'append-only: % purges whole groups only', TG_TABLE_NAME; "
        "END IF; RETURN NULL;"
    )

    def __init__(self, *, columns: tuple[str, str]) -> None:
        super().__init__(name=f"{TRIGGER_NAME}_whole", declare=[("remaining", "BOOLEAN")])
        self.columns = columns

    def render_execute(self, model) -> str:
        return f"{self.get_pgid(model)}('{self.columns[0]}', '{self.columns[1]}')"

    def compile(self, model) -> compiler.Trigger:
        compiled = super().compile(model)
        return compiler.Trigger(name=compiled.name, sql=GuardSql(**compiled.sql.kwargs))


def append_only_triggers(
    *,
    purgeable: bool = False,
    chain_columns: tuple[str, ...] = (),
    purged_whole_by: tuple[str, ...] = (),
) -> list[pgtrigger.Trigger]:
    """The model's `Meta.triggers`.

    `purgeable`: a purge permit lets DELETE through (erasure must reach these rows).
    `chain_columns`: under a permit, an UPDATE touching only these columns goes through.
    `purged_whole_by`: columns (db names) of the groups a purge removes all of or none.
    """
    triggers: list[pgtrigger.Trigger] = [
        AppendOnlyGuard(purgeable=purgeable, chain_columns=chain_columns)
    ]
    if purged_whole_by:
        triggers.append(WholeGroupPurge(columns=purged_whole_by))
    return triggers


# Installed once (iris_site's migration) on PostgreSQL, owned by the migrating role (the
# table owner). The permit table and the two functions that write it live in their own
# schema with no rights for PUBLIC, so blanket grants on schema `public` ("ALL TABLES",
# "ALL FUNCTIONS") never reach them: a runtime role opens permits only when granted
# USAGE on `iris_purge` and EXECUTE on the functions by name (README "Operations"). The guard's
# check is in `public` and only reads the caller's own transaction's permits.
PURGE_PERMIT_SQL = """
CREATE SCHEMA iris_purge;
REVOKE ALL ON SCHEMA iris_purge FROM PUBLIC;

CREATE TABLE iris_purge.permit (
    xact_id xid8 NOT NULL,
    table_name name NOT NULL,
    PRIMARY KEY (xact_id, table_name)
);
REVOKE ALL ON iris_purge.permit FROM PUBLIC;

CREATE FUNCTION iris_purge.permit_open(tables text[]) RETURNS void
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    INSERT INTO iris_purge.permit (xact_id, table_name)
    SELECT pg_current_xact_id(), t FROM unnest(tables) AS t
    ON CONFLICT DO NOTHING
$$;
REVOKE ALL ON FUNCTION iris_purge.permit_open(text[]) FROM PUBLIC;

CREATE FUNCTION iris_purge.permit_close() RETURNS void
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    DELETE FROM iris_purge.permit WHERE xact_id = pg_current_xact_id()
$$;
REVOKE ALL ON FUNCTION iris_purge.permit_close() FROM PUBLIC;

CREATE FUNCTION iris_purge_permitted(tbl name) RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    SELECT EXISTS (
        SELECT 1 FROM iris_purge.permit
        WHERE xact_id = pg_current_xact_id() AND table_name = tbl
    )
$$;
"""

PURGE_PERMIT_DROP_SQL = """
DROP FUNCTION IF EXISTS iris_purge_permitted(name);
DROP SCHEMA IF EXISTS iris_purge CASCADE;
"""


class PostgresPurgePermit(Operation):
    """Migration operation: the purge-permit table and functions, PostgreSQL only."""

    reversible = True
    reduces_to_sql = True

    def state_forwards(self, app_label, state) -> None:
        pass

    def database_forwards(self, app_label, schema_editor, from_state, to_state) -> None:
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(PURGE_PERMIT_SQL)

    def database_backwards(self, app_label, schema_editor, from_state, to_state) -> None:
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(PURGE_PERMIT_DROP_SQL)

    def describe(self) -> str:
        return "Purge permit table and functions (PostgreSQL)"

    def deconstruct(self):
        return self.__class__.__qualname__, [], {}


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


def _guard(model: type[models.Model]) -> AppendOnlyGuard | None:
    for trigger in getattr(model._meta, "triggers", []):
        if isinstance(trigger, AppendOnlyGuard):
            return trigger
    return None


def append_only_models() -> list[type[models.Model]]:
    from django.apps import apps

    return [model for model in apps.get_models() if _guard(model) is not None]


@contextlib.contextmanager
def purge_bypass(*model_classes: type[models.Model]) -> Iterator[None]:
    """Lift the append-only guard for these models inside the caller's transaction.

    Callers must already be inside `transaction.atomic()`. On PostgreSQL this opens a
    purge permit (DELETE, and chain-column re-chains, on purgeable tables only); it
    fails for a role not granted `iris_purge.permit_open`. On SQLite the triggers are
    dropped and come back before commit.
    """
    if not connection.in_atomic_block:
        raise RuntimeError("purge_bypass must run inside transaction.atomic()")
    if connection.vendor == "postgresql":
        closed = [m.__name__ for m in model_classes if not getattr(_guard(m), "purgeable", False)]
        if closed:
            raise RuntimeError("These tables have no purge path: " + ", ".join(closed))
        tables = [m._meta.db_table for m in model_classes]
        with connection.cursor() as cursor:
            cursor.execute("SELECT iris_purge.permit_open(%s)", [tables])
        yield
        # Closed on the way out; after an error the transaction rolls the permit back,
        # and a permit row is keyed by its transaction id, which never comes again.
        with connection.cursor() as cursor:
            cursor.execute("SELECT iris_purge.permit_close()")
        return
    sqlite_set_triggers(list(model_classes), enabled=False)
    try:
        yield
    finally:
        sqlite_set_triggers(list(model_classes), enabled=True)
