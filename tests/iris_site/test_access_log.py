"""The access line and `Server-Timing`: real requests through the whole middleware stack,
their SQL statements counted by the server exactly as Django's own query log counts them."""

import logging
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from iris_site.access_log import StatementCounter, server_timing
from tests.conftest import bearer_client
from tests.consent.factories import record
from tests.iris_site.factories import MemberFactory, ServiceClientFactory
from tests.memory.test_recall_service import remember

pytestmark = pytest.mark.django_db

LINE = re.compile(r"^(GET|POST) (\S+) (\d{3}) (\d+)ms (\d+)q$")
TIMING = re.compile(r'^db;dur=(\d+\.\d);desc="(\d+) statements?", total;dur=(\d+\.\d)$')
SECRET_WORDS = "lapsang souchong"


def _member():
    member = MemberFactory()
    for consent_type in ("data_processing", "data_storage"):
        record(member, consent_type)
    remember(member, f"I drink {SECRET_WORDS} every morning")
    remember(member, "I take my coffee black")
    return member


def _recall(member, **extra):
    """One recall as an assistant sends it, its statements captured by Django's query log
    beside the server's own count."""
    client = bearer_client(ServiceClientFactory(consumer="assistant"))
    with CaptureQueriesContext(connection) as queries:
        response = client.post(
            f"/api/v1/members/{member.pk}/recall/",
            {"surface": "assistant", "scope": {"kind": "profile"}, "query": SECRET_WORDS},
            format="json",
            **extra,
        )
    return response, len(queries.captured_queries)


def _access_lines(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "iris.access"]


def test_the_access_line_counts_the_requests_statements_and_names_no_content(caplog):
    # given a member with memories, and the access log captured
    member = _member()
    caplog.set_level(logging.INFO, logger="iris.access")

    # when an assistant recalls, and the member lists their memories
    response, statements = _recall(member)
    member_client = bearer_client(member)
    with CaptureQueriesContext(connection) as listing:
        listed = member_client.get("/api/v1/me/memories/")

    # then one line per request: route, status, duration and exactly the statements
    # Django's query log saw (several, so a wrong count cannot pass by luck)
    assert response.status_code == 200 and listed.status_code == 200
    recall_line, list_line = _access_lines(caplog)[-2:]
    method, route, status, _, count = LINE.match(recall_line).groups()
    assert (method, route, status) == ("POST", "members:recall", "200")
    assert int(count) == statements > 1
    method, route, status, _, count = LINE.match(list_line).groups()
    assert (method, status) == ("GET", "200")
    assert int(count) == len(listing.captured_queries) > 1
    # and nothing of the request's content or identities
    for line in (recall_line, list_line):
        assert str(member.pk) not in line
        assert "souchong" not in line and "/api/" not in line
    # and no Server-Timing header unless the setting is on
    assert "Server-Timing" not in response.headers


def test_server_timing_reports_the_statements_when_the_setting_is_on(settings, caplog):
    # given the setting on
    settings.IRIS_SERVER_TIMING = True
    member = _member()
    caplog.set_level(logging.INFO, logger="iris.access")

    # when an assistant recalls, and asks for a member that does not exist
    response, statements = _recall(member)
    client = bearer_client(ServiceClientFactory(consumer="assistant"))
    with CaptureQueriesContext(connection) as refused:
        missing = client.post(
            "/api/v1/members/00000000-0000-0000-0000-000000000000/recall/",
            {"surface": "assistant", "scope": {"kind": "profile"}},
            format="json",
        )

    # then each answer says how many statements it took and how long they ran,
    # the same count as the access line
    assert response.status_code == 200 and missing.status_code == 404
    db_ms, count, total_ms = TIMING.match(response.headers["Server-Timing"]).groups()
    assert int(count) == statements > 1
    assert 0 < float(db_ms) <= float(total_ms)
    assert _access_lines(caplog)[-2].endswith(f" {statements}q")
    _, count, _ = TIMING.match(missing.headers["Server-Timing"]).groups()
    assert int(count) == len(refused.captured_queries) > 0  # its own, not a running total
    assert _access_lines(caplog)[-1].endswith(f" {count}q")


def test_one_statement_reads_singular():
    counter = StatementCounter()
    counter.statements, counter.seconds = 1, 0.0042
    assert server_timing(counter, 0.0123) == 'db;dur=4.2;desc="1 statement", total;dur=12.3'
