"""What a request costs the database, counted in statements: a recall's count does not
grow with its result, and stays within a handful; a memory's detail likewise (issue 43).

The counts are Django's own query log of a real request through the test client, after
one warm-up request (a token's first use writes when it was used, once a minute)."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from memory.models import MemoryEntry, RecallRecord
from tests.conftest import bearer_client
from tests.iris_site.factories import ServiceClientFactory
from tests.memory.factories import consenting_member, remember

pytestmark = pytest.mark.django_db

RECALL_STATEMENTS = 8
DETAIL_STATEMENTS = 4


def _statements(send) -> int:
    send()  # warm-up: the token's first use
    with CaptureQueriesContext(connection) as captured:
        response = send()
    assert response.status_code == 200, response.content[:300]
    return len(captured.captured_queries)


@pytest.fixture
def member_with_people():
    """A member with twenty memories about tea, people among them (so the graph of a
    recall has entities and relationships to read)."""
    member = consenting_member()
    for number in range(20):
        fields = {"subject": f"tea {number}", "body": f"I drink green tea number {number}"}
        if number % 4 == 0:
            fields |= {
                "category": "relationship",
                "multi_actor": {
                    "actor_name": f"Friend Number{number}",
                    "relationship_note": "my friend",
                },
            }
        remember(member, **fields)
    return member


def test_a_recall_costs_the_same_few_statements_whatever_its_result(member_with_people):
    member = member_with_people
    client = bearer_client(ServiceClientFactory(consumer="assistant"))
    url = f"/api/v1/members/{member.pk}/recall/"
    counts = {}
    for budget in (1, 4, 12):
        body = {"surface": "assistant", "scope": {"kind": "profile"}, "query": "green tea"}
        counts[budget] = _statements(
            lambda body=body, budget=budget: client.post(
                url, {**body, "budget": budget}, format="json"
            )
        )
    # the results differ in size, the statements do not
    assert len(set(counts.values())) == 1, counts
    if connection.vendor == "postgresql":  # SQLite writes through the ORM, in a transaction
        assert counts[12] <= RECALL_STATEMENTS, counts


def test_a_memorys_detail_costs_four_statements(member_with_people):
    member = member_with_people
    client = bearer_client(member)
    entry = MemoryEntry.objects.filter(member=member).first()
    count = _statements(lambda: client.get(f"/api/v1/me/memories/{entry.pk}/"))
    assert count <= DETAIL_STATEMENTS


def test_a_100_kb_query_is_a_400_that_names_the_query_and_records_nothing(member_with_people):
    # given a surface that sends a query of 100 kB (the body limit is 2 MB)
    member = member_with_people
    client = bearer_client(ServiceClientFactory(consumer="assistant"))
    body = {"surface": "assistant", "scope": {"kind": "profile"}, "query": "tea " * 25_000}
    # when it recalls
    response = client.post(f"/api/v1/members/{member.pk}/recall/", body, format="json")
    # then a clear 400 on the query, before anything is read or written
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid" and "query" in error["fields"]
    assert not RecallRecord.objects.filter(member=member).exists()
