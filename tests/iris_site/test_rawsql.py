"""A raw read through `RowReader` gives each value exactly as the ORM would: on SQLite a
datetime arrives as text and a boolean as an integer, JSON as text everywhere."""

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from consent.models import ConsentEvent
from iris_site.rawsql import RowReader, one_of, values_of
from memory.models import MemoryEntry
from tests.consent.factories import record
from tests.iris_site.factories import MemberFactory
from tests.memory.factories import consenting_member, remember

pytestmark = pytest.mark.django_db


def _raw(model, names, pk):
    reader = RowReader(model, names)
    quote = connection.ops.quote_name
    pk_column = quote(model._meta.pk.column)
    statement = (
        f"SELECT {reader.select('t')} FROM {quote(model._meta.db_table)} t WHERE t.{pk_column} = %s"
    )
    with connection.cursor() as cursor:
        cursor.execute(statement, [model._meta.pk.get_db_prep_value(pk, connection)])
        row = cursor.fetchone()
    return reader, row


def test_an_entry_read_raw_is_the_entry_the_orm_reads():
    # given an entry with JSON, datetimes, a boolean, a nullable datetime and a UUID
    member = consenting_member()
    entry = remember(member, body="Oat milk in the coffee", subject="coffee").entry
    MemoryEntry.objects.filter(pk=entry.pk).update(
        suppression_ends_at=timezone.now() + timedelta(days=1), sensitive_interaction=True
    )
    names = [f.attname for f in MemoryEntry._meta.concrete_fields]
    # when
    reader, row = _raw(MemoryEntry, names, entry.pk)
    # then every value is the ORM's, of the ORM's type
    expected = list(MemoryEntry.objects.filter(pk=entry.pk).values_list(*names).get())
    values = reader.values(row)
    assert values == expected
    assert [type(v) for v in values] == [type(v) for v in expected]
    assert timezone.is_aware(values[names.index("updated_at")])
    assert values[names.index("sensitive_interaction")] is True
    assert isinstance(values[names.index("term_stats")], dict)


def test_a_ledger_event_read_raw_is_the_model_instance_the_orm_loads():
    # given a consent event (its fingerprint covers every field, datetimes as ISO text)
    member = MemberFactory()
    event = record(member, "data_storage").event
    names = [f.attname for f in ConsentEvent._meta.concrete_fields]
    # when
    reader, row = _raw(ConsentEvent, names, event.pk)
    loaded = reader.instance(row)
    # then
    stored = ConsentEvent.objects.get(pk=event.pk)
    assert loaded.body() == stored.body()
    assert (loaded.fingerprint, loaded.previous_hash, loaded.hash) == (
        stored.fingerprint,
        stored.previous_hash,
        stored.hash,
    )
    assert not loaded._state.adding


@pytest.mark.parametrize("count", [1, 3, 40])
def test_one_of_reads_the_rows_among_any_number_of_values_in_one_statement_text(count):
    # given 45 entries, of which ``count`` are asked for
    member = consenting_member()
    entries = [remember(member, body=f"Entry number {i}", subject=f"s{i}").entry for i in range(45)]
    wanted = [e.pk for e in entries[:count]]
    field = MemoryEntry._meta.pk
    values = [field.get_db_prep_value(pk, connection) for pk in wanted]
    quote = connection.ops.quote_name
    column = f"e.{quote(field.column)}"
    statement = (
        f"SELECT {column} FROM {quote(MemoryEntry._meta.db_table)} e"
        f" WHERE {one_of(column, len(values))}"
    )
    # when
    with connection.cursor() as cursor:
        cursor.execute(statement, values_of(values))
        found = {field.to_python(row[0]) for row in cursor.fetchall()}
    # then exactly those rows, and on PostgreSQL one text whatever the count
    assert found == set(wanted)
    if connection.vendor == "postgresql":
        assert statement.endswith(f"{column} = ANY(%s)")
    else:
        assert statement.count("%s") == count
