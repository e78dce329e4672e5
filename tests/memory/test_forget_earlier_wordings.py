"""Issue 41: forgetting a fact forgets every wording it had. Forgetting the current wording
used to leave the older wordings (the entries it superseded) readable: the member's API
served them and a search of the schema found them right after.

Over real HTTP: the member forgets the current wording; every earlier one (superseded by
a newer statement, by an edit that moved a memory onto the fact, through a chain) is
tombstoned with its text erased everywhere; wordings of other facts stay.
"""

import uuid

import pytest

from iris_site.audit.events import Actor
from memory.enums import Lifecycle
from memory.models import MemoryEntry
from memory.services import memory_edit
from tests.conftest import http_request
from tests.memory.factories import consenting_member, remember
from tests.memory.test_full_clear import token_of
from tests.trust.test_forget_completeness import schema_hits

pytestmark = pytest.mark.django_db(transaction=True)


def marker() -> str:
    return f"zqw{uuid.uuid4().hex[:10]}k7"


class Member:
    def __init__(self, live_server, member) -> None:
        self.base = live_server.url
        self.member = member
        self.token = token_of(member)

    def get(self, entry) -> dict:
        response = http_request(f"{self.base}/api/v1/me/memories/{entry.pk}/", token=self.token)
        assert response.status == 200, response.body
        return response.body

    def forget(self, entry) -> None:
        response = http_request(
            f"{self.base}/api/v1/me/memories/{entry.pk}/forget/", method="POST", token=self.token
        )
        assert response.status == 200, response.body


def state(entry) -> str:
    return MemoryEntry.objects.get(pk=entry.pk).lifecycle


def test_forgetting_the_current_wording_forgets_every_earlier_one(live_server):
    # given: a fact stated three times (each newer wording superseding the one before),
    # a memory edited onto the same fact, and another fact with its own older wording
    member = consenting_member()
    api = Member(live_server, member)
    first, second, moved, current = marker(), marker(), marker(), marker()
    v1 = remember(member, subject="coffee", body=f"I take my coffee black {first}").entry
    v2 = remember(member, subject="coffee", body=f"I take my coffee with sugar {second}").entry
    drinks = remember(member, subject="drinks", body=f"I drink coffee every day {moved}").entry
    # the member edits the drinks memory onto the coffee fact: it supersedes v2
    memory_edit(entry=drinks, actor=Actor.of(member), subject="coffee")
    v3 = remember(member, subject="coffee", body=f"I take my coffee with oat milk {current}").entry
    tea_old = remember(member, subject="tea", body="I take my tea with lemon").entry
    tea = remember(member, subject="tea", body="I take my tea with milk").entry
    assert [state(e) for e in (v1, v2, drinks, v3)] == [Lifecycle.SUPERSEDED] * 3 + ["active"]
    assert api.get(v1)["body"].endswith(first)
    # when the member forgets the current wording
    api.forget(v3)
    # then no wording of the fact is readable, over the API or anywhere in the schema
    for entry, text in ((v1, first), (v2, second), (drinks, moved), (v3, current)):
        read = api.get(entry)
        assert (read["lifecycle"], read["body"]) == ("tombstoned", "(forgotten)"), text
        assert schema_hits(text) == [], text
    # and the other fact keeps its wordings
    assert (state(tea_old), state(tea)) == (Lifecycle.SUPERSEDED, Lifecycle.ACTIVE)
    assert api.get(tea_old)["body"] == "I take my tea with lemon"


def test_forgetting_an_earlier_wording_leaves_the_newer_ones(live_server):
    member = consenting_member()
    api = Member(live_server, member)
    v1 = remember(member, subject="coffee", body="I take my coffee black").entry
    v2 = remember(member, subject="coffee", body="I take my coffee with sugar").entry
    v3 = remember(member, subject="coffee", body="I take my coffee with oat milk").entry
    # when the member forgets the middle wording
    api.forget(v2)
    # then the wording it superseded goes with it; the current one stays
    assert (state(v1), state(v2), state(v3)) == ("tombstoned", "tombstoned", "active")
    assert api.get(v3)["body"] == "I take my coffee with oat milk"


def test_a_later_statement_under_the_same_key_is_not_the_successor_of_an_older_wording(
    live_server,
):
    """The link is the key the newer entry read under when the older one was superseded,
    not the key alone: after the member moved the coffee fact to another subject, a new
    coffee statement superseded nothing, and forgetting it leaves the older wording of
    the moved fact; forgetting the moved fact takes it."""
    member = consenting_member()
    api = Member(live_server, member)
    black = remember(member, subject="coffee", body="I take my coffee black").entry
    sugar = remember(member, subject="coffee", body="I take my coffee with sugar").entry
    memory_edit(entry=sugar, actor=Actor.of(member), subject="espresso")
    later = remember(member, subject="coffee", body="I drink coffee only at weekends").entry
    assert (state(black), state(sugar), state(later)) == ("superseded", "active", "active")
    # when the member forgets the later coffee statement
    api.forget(later)
    # then the older wording of the other fact stays, until that fact is forgotten
    assert state(black) == Lifecycle.SUPERSEDED
    api.forget(sugar)
    assert state(black) == Lifecycle.TOMBSTONED


def test_earlier_wordings_are_followed_through_every_link(live_server):
    member = consenting_member()
    api = Member(live_server, member)
    lemon = remember(member, subject="tea", body="I take my tea with lemon").entry
    remember(member, subject="tea", body="I take my tea with milk")  # supersedes lemon
    walks = remember(member, subject="walks", body="I walk every morning").entry
    memory_edit(entry=walks, actor=Actor.of(member), subject="tea")  # supersedes the milk
    # when the member forgets the memory now read as the tea fact
    api.forget(walks)
    # then both earlier tea wordings go, through the milk one
    assert set(MemoryEntry.objects.filter(member=member).values_list("lifecycle", flat=True)) == {
        "tombstoned"
    }
    assert state(lemon) == Lifecycle.TOMBSTONED
