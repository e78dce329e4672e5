"""Issue 44, item 6: the member's proof names the surfaces that were told. The access
report lists which surfaces were notified of the member's changes, when, and whether they
acknowledged; a data-rights delete's receipt lists the surfaces its own erasure told —
by name, never an endpoint — and shows an acknowledgement that arrives afterwards. Over
real HTTP (the receipt API), and on the member's "Your data" pages."""

import json

import pytest
from django.test import Client

from memory.models import ChangeEvent
from tests.conftest import http_request
from tests.datarights.factories import ACCESS, HARD_DELETE, process, submit
from tests.memory.factories import consenting_member, remember
from tests.memory.test_change_events import Surfaces
from tests.memory.test_full_clear import token_of
from tests.stepup import step_up

pytestmark = pytest.mark.django_db(transaction=True)

COFFEE = "I take my coffee black"
TEA = "Green tea after lunch"


def receipt(live_server, member, request) -> dict:
    answer = http_request(
        f"{live_server.url}/api/v1/me/data-rights/{request.pk}/", token=token_of(member)
    )
    assert answer.status == 200, answer.body
    return answer.body


def ack(surfaces: Surfaces, consumer: str) -> None:
    answer = http_request(
        f"{surfaces.base}/api/v1/events/ack/",
        method="POST",
        token=surfaces.tokens[consumer],
        body={"cursor": surfaces.cursors[consumer]},
    )
    assert answer.status == 200, answer.body


def page(member, path: str) -> str:
    client = Client()
    client.force_login(member)
    step_up(client)
    return client.get(path).content.decode()


def test_the_access_report_lists_the_surfaces_told_and_whether_they_acknowledged(live_server):
    member = consenting_member()
    coffee = remember(member, subject="coffee", body=COFFEE).entry
    surfaces = Surfaces(live_server, member)
    surfaces.recall("assistant", "coffee")
    surfaces.recall("shell", "coffee black")
    forgot = http_request(
        f"{live_server.url}/api/v1/me/memories/{coffee.pk}/forget/",
        method="POST",
        token=token_of(member),
    )
    assert forgot.status == 200, forgot.body
    assert len(surfaces.feed("assistant")) == 1
    ack(surfaces, "assistant")  # the shell has not applied it yet

    request = process(submit(member, "access", ACCESS))
    assert request.status == "completed", request.progress
    report = receipt(live_server, member, request)["access_report"]
    rows = {row["name"]: row for row in report["notified_surfaces"]}
    assert set(rows) == {"Assistant", "Shell"}  # tara was given nothing: not told
    assert rows["Assistant"]["type"] == "memory.forgotten"
    assert rows["Assistant"]["acknowledged"] and rows["Assistant"]["acknowledged_at"]
    assert not rows["Shell"]["acknowledged"] and rows["Shell"]["acknowledged_at"] is None
    assert rows["Shell"]["event_count"] == 1 and rows["Shell"]["first_notified_at"]
    assert COFFEE not in json.dumps(report) and "http" not in json.dumps(rows)

    html = page(member, "/profile/memory/data/access/")
    assert "Who was told of your changes" in html
    assert "A memory was forgotten" in html and "Not yet" in html and "Tara" not in html


def test_a_deletes_proof_lists_the_surfaces_its_erasure_told(live_server):
    member = consenting_member()
    coffee = remember(member, subject="coffee", body=COFFEE).entry
    remember(member, subject="tea", body=TEA)
    surfaces = Surfaces(live_server, member)
    surfaces.recall("assistant", "coffee")
    # an earlier forget, told to the assistant: not this delete's doing
    http_request(
        f"{live_server.url}/api/v1/me/memories/{coffee.pk}/forget/",
        method="POST",
        token=token_of(member),
    )
    assert len(surfaces.feed("assistant")) == 1
    surfaces.recall("shell", "green tea lunch")

    erasure = process(submit(member, "delete", HARD_DELETE))
    assert erasure.status == "completed", erasure.progress
    rows = {
        row["consumer"]: row for row in receipt(live_server, member, erasure)["notified_surfaces"]
    }
    # both were given the tea (a small corpus: every recall returns it); each is told
    # once by this delete, of what it erased that the surface was given — the coffee's
    # recipients were told by the earlier forget, whose scrub left no record to tell again
    assert set(rows) == {"assistant", "shell"}
    told = rows["shell"]
    assert (told["name"], told["type"], told["event_count"]) == ("Shell", "memory.forgotten", 1)
    assert rows["assistant"]["event_count"] == 1 and told["last_notified_at"]
    told_assistant = ChangeEvent.objects.filter(consumer="assistant").order_by("id")
    assert str(coffee.pk) not in told_assistant.last().entry_ids
    assert not told["acknowledged"] and told["acknowledged_at"] is None
    html = page(member, "/profile/memory/data/delete/")
    assert "Who was told" in html and "Shell" in html and "Not yet" in html
    assert TEA not in html

    # the shell applies it later: the receipt shows it, read now
    for consumer in ("assistant", "shell"):
        assert [e["type"] for e in surfaces.feed(consumer)] == ["memory.forgotten"]
        ack(surfaces, consumer)
    rows = receipt(live_server, member, erasure)["notified_surfaces"]
    assert all(row["acknowledged"] and row["acknowledged_at"] for row in rows)
    html = page(member, "/profile/memory/data/delete/")
    assert "Not yet" not in html and "<td>Yes</td>" in html


def test_a_delete_no_surface_was_given_tells_none_and_says_so(live_server):
    member = consenting_member()
    remember(member, subject="tea", body=TEA)
    erasure = process(submit(member, "delete", HARD_DELETE))
    assert receipt(live_server, member, erasure)["notified_surfaces"] == []
    export = process(submit(member, "export", {}))
    assert receipt(live_server, member, export)["notified_surfaces"] is None
    assert "none had been given any of it" in page(member, "/profile/memory/data/delete/")
