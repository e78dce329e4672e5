"""Issue 44, item 8: `manage.py changes_tail --consumer X` shows a newcomer a forget
arriving at a surface — each event of that surface's feed, as it arrives, with its type,
ids and time; only that surface's; read-only (nothing is acknowledged)."""

import io
import threading
import time

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.utils import timezone

from iris_site.audit.events import Actor
from memory.forgetting.services import entry_forget
from memory.models import ChangeEvent, RecallRecord
from tests.memory.factories import consenting_member, remember

pytestmark = pytest.mark.django_db(transaction=True)


def tail(*args: str, stdout=None) -> list[str]:
    out = stdout or io.StringIO()
    call_command("changes_tail", *args, stdout=out)
    return out.getvalue().splitlines()


def given(entry, consumer: str) -> None:
    """The surface was given the entry (what a recall records)."""
    RecallRecord.objects.create(
        member_id=entry.member_id,
        surface=consumer,
        consumer=consumer,
        scope_key="profile",
        context="general",
        returned_ids=[str(entry.pk)],
        created_at=timezone.now(),
    )


def forget(entry) -> None:
    entry_forget(entry, actor=Actor.system("test"), now=timezone.now())


def test_once_prints_the_surfaces_events_and_acknowledges_nothing():
    member = consenting_member()
    coffee = remember(member, subject="coffee", body="I take my coffee black").entry
    given(coffee, "assistant")
    forget(coffee)
    [line] = tail("--consumer", "assistant", "--from-start", "--once")
    assert "memory.forgotten" in line and f"entries={coffee.pk}" in line
    assert f"member={member.pk}" in line and "revisions=" in line and "coffee" not in line
    assert tail("--consumer", "shell", "--from-start", "--once") == []  # not given it
    assert tail("--consumer", "assistant", "--once") == []  # only what arrives from now
    assert ChangeEvent.objects.get().acknowledged_at is None


def test_it_follows_the_feed_and_prints_a_forget_as_it_arrives():
    member = consenting_member()
    coffee = remember(member, subject="coffee", body="I take my coffee black").entry
    given(coffee, "assistant")
    out = io.StringIO()

    def follow() -> None:
        try:
            tail("--consumer", "assistant", "--interval", "0.05", "--for", "3", stdout=out)
        finally:
            connection.close()

    follower = threading.Thread(target=follow, daemon=True)
    follower.start()
    deadline = time.monotonic() + 10
    while "Following the change feed of Assistant" not in out.getvalue():
        assert time.monotonic() < deadline
        time.sleep(0.05)
    forget(coffee)
    while "memory.forgotten" not in out.getvalue():
        assert time.monotonic() < deadline, out.getvalue()
        time.sleep(0.05)
    follower.join(15)
    assert not follower.is_alive()
    assert sum("memory.forgotten" in line for line in out.getvalue().splitlines()) == 1


def test_an_unknown_surface_is_refused():
    with pytest.raises(CommandError):
        tail("--consumer", "nobody", "--once")
