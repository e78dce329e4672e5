"""The member memory page without a browser: isolation, CSRF, the forms' outcomes."""

import pytest
from django.test import Client
from django.urls import reverse

from iris_site.audit.events import Actor
from memory.contracts import SCOPE_KEY_ADAPTER, MemoryWriteRequest
from memory.models import MemoryEntry
from memory.services import memory_change_scope, memory_remember
from tests.consent.factories import record
from tests.iris_site.factories import PASSWORD, MemberFactory, OperatorFactory

pytestmark = pytest.mark.django_db

ENTRY_URLS = ["detail", "history", "edit", "forget", "scope"]
ENTRY_POSTS = {
    "edit": {"body": "changed", "subject": "", "category": "preference", "save": "1"},
    "pause": {},
    "resume": {},
    "forget": {},
    "scope": {"kind": "notebook", "notebook_id": "n-1"},
}
MEMBER_POSTS = {
    "memory:off-the-record": ({}, {"active": "on"}),
    "memory:forget-category": ({}, {"category": "preference", "confirm": "1"}),
    "memory:clear": ({}, {"password": PASSWORD}),
    "memory:consent-grant": ({"consent_type": "cross_device"}, {}),
    "memory:consent-withdraw": ({"consent_type": "data_storage"}, {}),
}


def consenting_member():
    member = MemberFactory()
    record(member, "data_processing")
    record(member, "data_storage")
    return member


def remember(member, body="I take my coffee black"):
    write = MemoryWriteRequest.model_validate(
        {
            "scope": {"kind": "profile"},
            "category": "preference",
            "body": body,
            "origin": "user-stated",
        },
        context={"user_id": member.pk},
    )
    return memory_remember(member=member, write=write, actor=Actor.of(member)).entry


def signed_in(user, **kwargs) -> Client:
    client = Client(**kwargs)
    client.force_login(user)
    return client


@pytest.mark.parametrize("name", ENTRY_URLS)
def test_another_members_entry_is_a_404_on_every_page(name):
    owner, intruder = consenting_member(), consenting_member()
    entry = remember(owner)
    response = signed_in(intruder).get(reverse(f"memory:{name}", args=[entry.pk]))
    assert response.status_code == 404


@pytest.mark.parametrize(("name", "data"), ENTRY_POSTS.items())
def test_another_member_cannot_change_or_forget_an_entry(name, data):
    owner, intruder = consenting_member(), consenting_member()
    entry = remember(owner)
    response = signed_in(intruder).post(reverse(f"memory:{name}", args=[entry.pk]), data)
    assert response.status_code == 404
    entry.refresh_from_db()
    assert (entry.body, entry.lifecycle, entry.revision_count) == (
        "I take my coffee black",
        "active",
        1,
    )


@pytest.mark.parametrize(("name", "data"), ENTRY_POSTS.items())
def test_entry_forms_reject_a_missing_csrf_token(name, data):
    member = consenting_member()
    entry = remember(member)
    client = signed_in(member, enforce_csrf_checks=True)
    response = client.post(reverse(f"memory:{name}", args=[entry.pk]), data)
    assert response.status_code == 403
    entry.refresh_from_db()
    assert entry.revision_count == 1


@pytest.mark.parametrize(("name", "args_and_data"), MEMBER_POSTS.items())
def test_member_forms_reject_a_missing_csrf_token(name, args_and_data):
    kwargs, data = args_and_data
    member = consenting_member()
    remember(member)
    client = signed_in(member, enforce_csrf_checks=True)
    response = client.post(reverse(name, kwargs=kwargs), data)
    assert response.status_code == 403
    assert MemoryEntry.objects.get(member=member).lifecycle == "active"


def test_pages_require_a_signed_in_member():
    assert Client().get("/profile/memory/").status_code == 302
    assert signed_in(OperatorFactory()).get("/profile/memory/").status_code == 403


def test_empty_state_says_what_to_do():
    response = signed_in(consenting_member()).get("/profile/memory/")
    assert b"does not remember anything about you yet" in response.content


def test_entries_are_grouped_by_scope_and_filterable():
    member = consenting_member()
    remember(member, "I take my coffee black")
    client = signed_in(member)
    page = client.get("/profile/memory/").content.decode()
    assert '<h2 id="scope-1">About you</h2>' in page and "I take my coffee black" in page
    filtered = client.get("/profile/memory/", {"category": "medical"}).content.decode()
    assert "Nothing matches these filters" in filtered


def test_full_clear_needs_the_password_and_can_be_cancelled():
    member = consenting_member()
    remember(member)
    client = signed_in(member)
    wrong = client.post(reverse("memory:clear"), {"password": "nope"})
    assert b"That password is not right." in wrong.content
    client.post(reverse("memory:clear"), {"password": PASSWORD})
    assert b"about to be erased" in client.get("/profile/memory/").content
    client.post(reverse("memory:clear"), {"cancel": "1"})
    assert b"I take my coffee black" in client.get("/profile/memory/").content


def test_scope_page_explains_unavailable_moves():
    member = consenting_member()
    entry = remember(member)
    page = signed_in(member).get(reverse("memory:scope", args=[entry.pk])).content.decode()
    assert "Why some places are not offered" in page
    assert "Your organisation" in page


def test_moving_to_a_notebook_picks_one_or_names_a_new_one_with_errors_on_the_field():
    member = consenting_member()
    notebook = remember(member, body="Chapter four notes")
    memory_change_scope(
        entry=notebook,
        scope=SCOPE_KEY_ADAPTER.validate_python(
            {"kind": "notebook", "notebook_id": "novel", "user_id": str(member.pk)}
        ),
        actor=Actor.of(member),
    )
    entry = remember(member)
    client = signed_in(member)
    url = reverse("memory:scope", args=[entry.pk])
    page = client.get(url).content.decode()
    # the member's notebooks are offered; a session field that cannot apply is not
    assert '<option value="novel">novel</option>' in page
    assert 'name="session_id"' not in page
    # nothing chosen: the error is on the notebook field, marked for assistive technology
    missing = client.post(url, {"kind": "notebook", "notebook": ""}).content.decode()
    assert 'id="id_notebook-error"' in missing and 'aria-invalid="true"' in missing
    entry.refresh_from_db()
    assert entry.scope_kind == "profile"
    # an existing one, or a new one by name
    client.post(url, {"kind": "notebook", "notebook": "novel"})
    entry.refresh_from_db()
    assert (entry.scope_kind, entry.notebook_id) == ("notebook", "novel")


def test_a_refused_edit_is_a_message_not_an_error():
    member = consenting_member()
    entry = remember(member)
    response = signed_in(member).post(
        reverse("memory:edit", args=[entry.pk]),
        {"body": "I have asthma", "subject": "", "category": "medical", "save": "1"},
        follow=True,
    )
    assert response.status_code == 200
    assert b"consent" in response.content.lower()
    entry.refresh_from_db()
    assert entry.category == "preference"
