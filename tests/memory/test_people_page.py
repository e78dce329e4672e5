"""People and topics (/profile/memory/people/): what Iris holds about each person and
topic, the history of their relationships, and "forget everything about them" through
the same retirement service as the API; another member's entity is a 404."""

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from django.utils.formats import date_format

from memory.models import MemoryEntity, MemoryEntry
from tests.memory.factories import consenting_member, remember
from tests.stepup import step_up

pytestmark = pytest.mark.django_db

NAME = "Samwise Example"


def sam(member, *, subject="job", body="Sam works at the bakery", note="my sister"):
    return remember(
        member,
        category="relationship",
        subject=subject,
        body=body,
        multi_actor={"actor_name": NAME, "relationship_note": note},
    ).entry


def browser_of(member) -> Client:
    client = Client()
    client.force_login(member)
    step_up(client)
    return client


def person_of(member) -> MemoryEntity:
    return MemoryEntity.objects.get(member=member, kind="person")


def test_the_page_lists_people_and_topics_with_what_iris_holds():
    member = consenting_member()
    sam(member)
    remember(member, body="I take my coffee black", subject="coffee")
    page = browser_of(member).get("/profile/memory/people/").content.decode()
    assert NAME in page and "coffee" in page and "job" in page
    assert "1 memory" in page
    # the member themself is not a "person" to forget one topic at a time
    me = MemoryEntity.objects.get(member=member, kind="self")
    assert f"/profile/memory/people/{me.pk}/" not in page
    assert browser_of(member).get(f"/profile/memory/people/{me.pk}/").status_code == 404


def test_a_person_page_shows_the_memories_and_when_each_relationship_held():
    member = consenting_member()
    entry = sam(member)
    page = browser_of(member).get(f"/profile/memory/people/{person_of(member).pk}/")
    text = page.content.decode()
    assert page.status_code == 200
    assert "Sam works at the bakery" in text and f"/profile/memory/{entry.pk}/" in text
    assert f"Your sister, {NAME}" in text and "still true" in text
    assert "Forget everything about this person" in text


def test_forgetting_everything_about_a_person_erases_them_and_says_so():
    member = consenting_member()
    entry = sam(member)
    kept = remember(member, body="I take my coffee black", subject="coffee").entry
    person = person_of(member)
    client = browser_of(member)
    confirm = client.get(f"/profile/memory/people/{person.pk}/forget/").content.decode()
    assert "1 memory" in confirm and "Yes, forget everything" in confirm
    done = client.post(f"/profile/memory/people/{person.pk}/forget/", follow=True)
    text = done.content.decode()
    assert "Forgot everything about this person: 1 memory erased" in text
    assert NAME not in text
    entry.refresh_from_db()
    person.refresh_from_db()
    assert entry.lifecycle == "tombstoned" and "bakery" not in entry.body
    assert person.state == "retired" and person.label == ""
    assert MemoryEntry.objects.get(pk=kept.pk).lifecycle == "active"
    # the retired person is gone from the page and their page is a 404
    assert client.get(f"/profile/memory/people/{person.pk}/").status_code == 404
    assert NAME not in client.get("/profile/memory/people/").content.decode()


def test_another_members_person_is_a_404_everywhere():
    owner, other = consenting_member(), consenting_member()
    sam(owner)
    person = person_of(owner)
    client = browser_of(other)
    assert client.get(f"/profile/memory/people/{person.pk}/").status_code == 404
    forget = f"/profile/memory/people/{person.pk}/forget/"
    assert client.get(forget).status_code == 404
    assert client.post(forget).status_code == 404
    person.refresh_from_db()
    assert person.state == "active"


def test_the_page_shows_until_when_a_superseded_relationship_held():
    member = consenting_member()
    t1 = timezone.now() - timedelta(days=60)
    t2 = t1 + timedelta(days=30)
    for now, body, note in (
        (t1, "Sam works at the bakery", "my sister"),
        (t2, "Sam now works at the library", "my colleague"),
    ):
        remember(
            member,
            category="relationship",
            subject="job",
            body=body,
            multi_actor={"actor_name": NAME, "relationship_note": note},
            now=now,
        )
    text = browser_of(member).get(f"/profile/memory/people/{person_of(member).pk}/")
    text = " ".join(text.content.decode().split())
    since, until = date_format(t1, "j F Y"), date_format(t2, "j F Y")
    assert f"Your sister, {NAME}: <span>from {since} until {until}</span>" in text
    assert f"Your colleague, {NAME}: <span>from {until}, still true</span>" in text
