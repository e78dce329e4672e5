"""The recall audit reads the rows the gate may withhold whatever the request from the
covering index `memory_member_withheld` alone: its condition and the statement's
(`sql.suspect_condition`) must name the same rows, or PostgreSQL would read the table
(or, were the index narrower, the audit would miss rows)."""

import pytest
from django.db import connection

from memory.models import MemoryEntry
from memory.recall.store import sql
from tests.memory.test_recall_store import synthetic_member

pytestmark = pytest.mark.django_db


def test_the_index_condition_and_the_statements_name_the_same_rows():
    # given a member with rows of every lifecycle, suppression, category and mention
    member = synthetic_member(5, n=300)
    index = next(i for i in MemoryEntry._meta.indexes if i.name == "memory_member_withheld")
    # when both conditions select the member's rows
    by_index = set(
        MemoryEntry.objects.filter(index.condition, member=member).values_list("id", flat=True)
    )
    quote = connection.ops.quote_name
    condition = sql.suspect_condition(lambda name: quote(MemoryEntry._meta.get_field(name).column))
    by_statement = {
        entry.pk
        for entry in MemoryEntry.objects.raw(
            f"SELECT id FROM {quote(MemoryEntry._meta.db_table)}"
            f" WHERE member_id = %s AND lifecycle <> 'tombstoned' AND {condition}",
            [member.pk.hex if connection.vendor == "sqlite" else member.pk],
        )
    }
    live = set(
        MemoryEntry.objects.filter(member=member)
        .exclude(lifecycle="tombstoned")
        .values_list("id", flat=True)
    )
    # then they agree on every row that is not forgotten (a forgotten row is out of reach)
    by_statement = {
        row if not isinstance(row, str) else type(next(iter(live)))(row) for row in by_statement
    }
    assert by_index & live == by_statement
    assert 0 < len(by_statement) < len(live)
