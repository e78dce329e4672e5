"""Every statement a request runs on PostgreSQL has a ceiling; jobs and commands do not."""

import pytest
from django.db import OperationalError, connection, transaction

from iris_site.statement_timeout import _limited, _serving, statement_timeout_set

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="a PostgreSQL setting"),
]


def _timeout() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SHOW statement_timeout")
        return cursor.fetchone()[0]


def _opened_while_serving() -> None:
    """What `connection_created` does for a connection a request opens."""
    token = _serving.set(True)
    try:
        statement_timeout_set(sender=None, connection=connection)
    finally:
        _serving.reset(token)


@pytest.fixture
def restored():
    yield
    with connection.cursor() as cursor:
        cursor.execute("SET statement_timeout = 0")


def test_a_connection_opened_by_a_request_cuts_a_statement_past_the_ceiling(settings, restored):
    # given a connection opened while a request is served, with a ceiling of 200 ms
    settings.IRIS_STATEMENT_TIMEOUT_MS = 200
    _opened_while_serving()
    assert _timeout() == "200ms"
    # when a statement runs longer, then it is cut
    with pytest.raises(OperationalError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT pg_sleep(2)")
    # and a short one runs
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        assert cursor.fetchone() == (1,)


def test_a_connection_opened_outside_a_request_has_no_ceiling(settings, restored):
    # a job's or a command's connection: an export or a migration may take longer
    settings.IRIS_STATEMENT_TIMEOUT_MS = 200
    statement_timeout_set(sender=None, connection=connection)
    assert _timeout() == "0"


def test_a_ceiling_of_zero_sets_nothing(settings, restored):
    settings.IRIS_STATEMENT_TIMEOUT_MS = 0
    _opened_while_serving()
    assert _timeout() == "0"


def test_a_connection_opened_before_any_request_gets_the_ceiling_at_the_first(
    client, settings, restored
):
    # given a connection opened outside a request (a query at a worker's start), in a
    # thread that now serves
    settings.IRIS_STATEMENT_TIMEOUT_MS = 300
    connection.ensure_connection()
    _limited.discard(connection.connection)
    assert _timeout() == "0"
    # when a request is served on it
    assert client.get("/healthz").status_code == 200
    # then it carries the ceiling
    assert _timeout() == "300ms"
