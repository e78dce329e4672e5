"""A notebook's lifecycle (issue 41, item 5): deleting a notebook erases its memory now;
closing one refuses new writes and has the retention sweep erase its memory after the
grace; other notebooks are untouched."""

from datetime import timedelta

import pytest

from iris_site.audit.events import Actor
from iris_site.errors import Conflict, NotFound
from memory.contracts import SCOPE_KEY_ADAPTER
from memory.enums import Lifecycle
from memory.forgetting.notebooks import (
    NOTEBOOK_CLOSE_GRACE,
    memory_forget_notebook,
    notebook_close,
    notebook_delete,
)
from memory.models import MemoryEntry, NotebookClosure, ServiceClientCapabilities
from memory.services import memory_change_scope, memory_edit
from memory.sweeps.retention import retention_sweep
from tests.conftest import bearer_client, http_request
from tests.iris_site.factories import ServiceClientFactory
from tests.memory.factories import consenting_member, memory_audit, remember
from tests.stepup import step_up_client, step_up_token
from tests.trust.test_forget_completeness import new_marker, schema_hits

pytestmark = pytest.mark.django_db

ME = "/api/v1/me/notebooks/"


def note(member, notebook_id: str, body: str):
    return remember(
        member,
        scope={"kind": "notebook", "notebook_id": notebook_id},
        subject=f"note {new_marker()}",
        body=body,
    ).entry


def lifecycle(entry) -> str:
    return MemoryEntry.objects.get(pk=entry.pk).lifecycle


def surface_url(member, notebook_id: str, tail: str = "") -> str:
    return f"/api/v1/members/{member.pk}/notebooks/{notebook_id}/{tail}"


def test_deleting_a_notebook_erases_its_memory_now_and_nothing_else():
    member = consenting_member()
    marker, other = new_marker(), new_marker()
    doomed = note(member, "nb-1", f"Chapter notes on {marker} theory")
    kept = note(member, "nb-2", f"Chapter notes on {other} theory")
    end = notebook_delete(member=member, notebook_id="nb-1", actor=Actor.of(member))
    assert end.erased_ids == (doomed.pk,)
    assert end.closure.state == NotebookClosure.State.DELETED
    assert lifecycle(doomed) == Lifecycle.TOMBSTONED and lifecycle(kept) == Lifecycle.ACTIVE
    assert schema_hits(marker) == [] and schema_hits(other)
    [event] = memory_audit(member, "memory.notebook.deleted")
    assert event.payload["erased_count"] == 1 and marker not in str(event.payload)
    with pytest.raises(NotFound):  # deleted already
        notebook_delete(member=member, notebook_id="nb-1", actor=Actor.of(member))
    with pytest.raises(NotFound):  # nothing of the member's there
        notebook_delete(member=member, notebook_id="nb-9", actor=Actor.of(member))


def test_the_old_hook_still_forgets_a_notebook_through_the_erasure_extent():
    member = consenting_member()
    entry = note(member, "nb-1", "Vocabulary list for the exam")
    forgotten = memory_forget_notebook(member=member, notebook_id="nb-1", actor=Actor.of(member))
    assert forgotten == [entry.pk]
    [erased] = memory_audit(member, "memory.entries.erased")
    assert erased.payload["extent"] == "scope" and erased.payload["reason"] == "notebook-delete"
    assert memory_forget_notebook(member=member, notebook_id="nb-1", actor=Actor.of(member)) == []


def test_a_closed_notebook_takes_no_new_writes_and_reclosing_is_idempotent():
    member = consenting_member()
    note(member, "nb-1", "First page of notes")
    closure, created = notebook_close(member=member, notebook_id="nb-1", actor=Actor.of(member))
    assert created and closure.erase_after == closure.closed_at + NOTEBOOK_CLOSE_GRACE
    again, created = notebook_close(member=member, notebook_id="nb-1", actor=Actor.of(member))
    assert not created and again.pk == closure.pk and again.erase_after == closure.erase_after
    with pytest.raises(Conflict) as refused:
        note(member, "nb-1", "A second page of notes")
    assert refused.value.code == "notebook-closed"
    note(member, "nb-2", "Another notebook still takes notes")  # others are open


def test_the_sweep_erases_a_closed_notebook_after_its_grace_and_not_before():
    member = consenting_member()
    marker = new_marker()
    closed = note(member, "nb-1", f"Lab results for {marker} trial")
    open_entry = note(member, "nb-2", "Open notebook keeps its notes")
    closure, _ = notebook_close(member=member, notebook_id="nb-1", actor=Actor.of(member))
    # before the grace: nothing happens
    early = retention_sweep(now=closure.erase_after - timedelta(minutes=1))
    assert early.notebooks_erased == 0
    assert lifecycle(closed) == Lifecycle.ACTIVE and schema_hits(marker)
    # after it: erased, the notebook deleted, the other notebook untouched
    report = retention_sweep(now=closure.erase_after + timedelta(minutes=1))
    assert report.notebooks_erased == 1 and report.changed
    assert lifecycle(closed) == Lifecycle.TOMBSTONED and schema_hits(marker) == []
    assert lifecycle(open_entry) == Lifecycle.ACTIVE
    closure.refresh_from_db()
    assert closure.state == NotebookClosure.State.DELETED and closure.erased_at is not None
    # idempotent
    assert retention_sweep(now=closure.erase_after + timedelta(days=1)).notebooks_erased == 0


def test_the_member_lists_closes_and_deletes_notebooks_over_the_api():
    member = consenting_member()
    note(member, "nb-1", "Notes one")
    note(member, "nb-2", "Notes two")
    client = step_up_client(member)
    listed = client.get(ME)
    assert listed.status_code == 200, listed.content
    assert [(n["notebook_id"], n["state"], n["entry_count"]) for n in listed.json()["results"]] == [
        ("nb-1", "open", 1),
        ("nb-2", "open", 1),
    ]
    closed = client.post(f"{ME}nb-1/close/")
    assert closed.status_code == 200, closed.content
    assert closed.json()["state"] == "closed" and closed.json()["erased_at"] is None
    assert client.post(f"{ME}nb-1/close/").json() == closed.json()
    deleted = client.delete(f"{ME}nb-2/")
    assert deleted.status_code == 200, deleted.content
    assert deleted.json()["state"] == "deleted" and deleted.json()["erased_count"] == 1
    states = {n["notebook_id"]: n["state"] for n in client.get(ME).json()["results"]}
    assert states == {"nb-1": "closed", "nb-2": "deleted"}
    assert client.delete(f"{ME}nb-2/").status_code == 404
    assert client.post(f"{ME}nb-2/close/").status_code == 404
    missing = client.post(f"{ME}nb-9/close/")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"
    assert client.post(f"{ME}bad:id/close/").status_code == 400
    # a write into the closed notebook is a structured 409
    write = client.post(
        "/api/v1/me/memories/",
        {"scope": {"kind": "notebook", "notebook_id": "nb-1"}, "category": "goal", "body": "x y"},
        format="json",
    )
    assert write.status_code == 409, write.content
    assert write.json()["error"]["code"] == "notebook-closed"


def test_another_members_notebook_is_404():
    owner, other = consenting_member(), consenting_member()
    entry = note(owner, "nb-1", "Owner's notes")
    client = step_up_client(other)
    assert client.post(f"{ME}nb-1/close/").status_code == 404
    assert client.delete(f"{ME}nb-1/").status_code == 404
    assert lifecycle(entry) == Lifecycle.ACTIVE
    assert not NotebookClosure.objects.exists()


def test_the_notebook_surface_may_not_close_or_delete_for_the_member():
    # issue 42: closing (erased after the grace) and deleting forget the member's memory,
    # which only the member does, with a recent re-authentication
    member = consenting_member()
    entry = note(member, "nb-1", "Surface notes")
    notebook = bearer_client(ServiceClientFactory(consumer="notebook"))
    closed = notebook.post(surface_url(member, "nb-1", "close/"))
    deleted = notebook.delete(surface_url(member, "nb-1"))
    for refused in (closed, deleted):
        assert refused.status_code == 403, refused.content
        assert refused.json()["error"]["code"] == "member-forgetting-only"
    assert lifecycle(entry) == Lifecycle.ACTIVE
    assert not NotebookClosure.objects.filter(member=member).exists()
    # a client narrowed so it may not write notebook memory is refused
    other = note(member, "nb-3", "Notes the narrowed client cannot close")
    client = ServiceClientFactory(consumer="notebook")
    ServiceClientCapabilities.objects.create(
        service_client=client, write_kinds=["session"], reason="test"
    )
    refused = bearer_client(client).post(surface_url(member, "nb-3", "close/"))
    assert refused.status_code == 403, refused.content
    assert refused.json()["error"]["code"] == "consumer-not-allowed-for-scope"
    assert lifecycle(other) == Lifecycle.ACTIVE
    # a member as a service client, or an unknown member
    assert step_up_client(member).post(surface_url(member, "nb-1", "close/")).status_code == 403
    stranger = consenting_member()
    stranger.pk = "00000000-0000-0000-0000-000000000000"
    assert notebook.post(surface_url(stranger, "nb-1", "close/")).status_code == 404


@pytest.mark.django_db(transaction=True)
def test_deleting_a_notebook_over_real_http(live_server):
    member = consenting_member()
    marker = new_marker()
    note(member, "nb-1", f"Real notes about {marker} here")
    token = step_up_token(member)
    response = http_request(f"{live_server.url}{ME}nb-1/", method="DELETE", token=token)
    assert response.status == 200, response.body
    assert response.body["erased_count"] == 1
    assert schema_hits(marker) == []
    again = http_request(f"{live_server.url}{ME}nb-1/", method="DELETE", token=token)
    assert again.status == 404 and again.body["error"]["code"] == "not_found"


def test_a_closed_notebook_takes_no_edit_and_no_memory_moved_into_it():
    member = consenting_member()
    page = note(member, "nb-1", "First page of notes")
    elsewhere = remember(member, body="Reads before sleeping").entry
    notebook_close(member=member, notebook_id="nb-1", actor=Actor.of(member))
    with pytest.raises(Conflict) as edit:
        memory_edit(entry=page, actor=Actor.of(member), body="First page, rewritten")
    assert edit.value.code == "notebook-closed"
    with pytest.raises(Conflict) as move:
        memory_change_scope(
            entry=elsewhere,
            scope=SCOPE_KEY_ADAPTER.validate_python(
                {"kind": "notebook", "notebook_id": "nb-1", "user_id": str(member.pk)}
            ),
            actor=Actor.of(member),
        )
    assert move.value.code == "notebook-closed"
    assert MemoryEntry.objects.get(pk=page.pk).body == "First page of notes"
