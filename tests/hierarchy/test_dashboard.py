"""The operator dashboard (/console/dashboard/, still served at its first address
/dashboard/admin/memory-hierarchy): operators only, counts per tier, "—" for a part whose
query fails, audited."""

import pytest
from django.test import Client

from tests.hierarchy.stm_factories import events, member_with, write
from tests.iris_site.factories import PASSWORD, OperatorFactory
from tests.memory.factories import remember

pytestmark = pytest.mark.django_db
URL = "/console/dashboard/"
FIRST_URL = "/dashboard/admin/memory-hierarchy"


def signed_in(user) -> Client:
    client = Client()
    assert client.login(email=user.email, password=PASSWORD)
    return client


def test_an_operator_sees_counts_for_every_tier_and_the_hourly_chart():
    # given
    member = member_with()
    write(member)
    remember(member)
    # when
    response = signed_in(OperatorFactory(role="support")).get(URL)
    # then
    assert response.status_code == 200
    html = response.content.decode()
    assert 'data-testid="stm-total">1<' in html
    assert 'data-testid="ltm-total">1<' in html
    assert "user_session" in html.lower() or "User Session" in html
    assert "<svg" in html and "Episodic events per hour" in html
    assert "—" not in html.split("<h1>")[1].split("</p>", 1)[1]
    assert "morning walks" not in html and "coffee" not in html
    [event] = events("hierarchy.counts.read")
    assert event.payload == {"surface": "dashboard", "range": "24h", "failed_parts": []}


@pytest.mark.parametrize(
    ("selector", "testid"),
    [
        ("stm_counts_by_kind", "stm-total"),
        ("ltm_counts_by_lifecycle", "ltm-total"),
        ("episodic_count_24h", "episodic-24h"),
    ],
)
def test_a_failing_part_renders_a_dash_and_the_rest_still_renders(monkeypatch, selector, testid):
    # given
    def broken(**kwargs):
        raise RuntimeError("query failed")

    monkeypatch.setattr(f"hierarchy.operator.{selector}", broken)
    write(member_with())
    # when
    response = signed_in(OperatorFactory()).get(URL)
    # then
    assert response.status_code == 200
    html = response.content.decode()
    assert f'data-testid="{testid}">—<' in html
    others = {"stm-total", "ltm-total", "episodic-24h"} - {testid}
    for other in others:
        assert f'data-testid="{other}">—<' not in html
    assert events("hierarchy.counts.read")[0].payload["failed_parts"]


def test_the_chart_falls_back_too(monkeypatch):
    monkeypatch.setattr(
        "hierarchy.operator.episodic_hourly_24h",
        lambda **kwargs: (_ for _ in ()).throw(RuntimeError("down")),
    )
    html = signed_in(OperatorFactory()).get(URL).content.decode()
    assert "The hourly chart is unavailable right now." in html


def test_members_are_forbidden_and_anonymous_visitors_sign_in_first():
    assert signed_in(member_with()).get(URL).status_code == 403
    response = Client().get(URL)
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_the_first_address_serves_the_same_page():
    response = signed_in(OperatorFactory()).get(FIRST_URL)
    assert response.status_code == 200
    assert response.resolver_match.func.__name__ == "memory_hierarchy_dashboard"
    assert "<h1>Memory hierarchy dashboard</h1>" in response.content.decode()
