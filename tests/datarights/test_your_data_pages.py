""" "Your data" as three short pages (get a copy, see what Iris holds and who looked,
erase), each with its form first and only its own kind of request in the history
below; a pending request's status is a small fragment htmx polls; the default export
from the page holds every scope the member has; Appeal only where it means something."""

import json

import pytest
from django.test import Client

from datarights.export import artifact_path, open_zip
from datarights.models import DataRightsRequest
from memory.enums import ScopeKind
from tests.datarights.factories import (
    ACCESS,
    HARD_DELETE,
    SOFT_DELETE,
    consenting_member,
    process,
    remember,
    submit,
)
from tests.inspection.factories import granted
from tests.iris_site.factories import OperatorFactory

pytestmark = pytest.mark.django_db

DATA = "/profile/memory/data/"
PAGES = {"export": DATA + "export/", "access": DATA + "access/", "delete": DATA + "delete/"}


def signed_in(member) -> Client:
    client = Client()
    client.force_login(member)
    return client


def test_the_overview_links_three_short_pages_each_with_its_own_form():
    member = consenting_member()
    client = signed_in(member)
    overview = client.get(DATA).content.decode()
    for path in PAGES.values():
        assert f'href="{path}"' in overview
    titles = {
        "export": "<title>Get a copy of your data · Iris</title>",
        "access": "<title>See what Iris holds and who looked · Iris</title>",
        "delete": "<title>Erase your data · Iris</title>",
    }
    for kind, path in PAGES.items():
        html = client.get(path).content.decode()
        assert titles[kind] in html
        assert html.count('<form method="post" action="' + path + '"') == 1
        # only this page's form: the others are on their own pages
        for other, other_path in PAGES.items():
            if other != kind:
                assert f'action="{other_path}"' not in html


def test_each_history_lists_only_its_kind_below_the_form():
    member = consenting_member()
    remember(member, body="I take my coffee black")
    export = process(submit(member, "export", {}))
    access = process(submit(member, "access", ACCESS))
    client = signed_in(member)
    export_page = client.get(PAGES["export"]).content.decode()
    access_page = client.get(PAGES["access"]).content.decode()
    delete_page = client.get(PAGES["delete"]).content.decode()
    assert f'id="request-{export.pk}"' in export_page
    assert f'id="request-{access.pk}"' not in export_page
    assert f'id="request-{access.pk}"' in access_page
    assert f'id="request-{export.pk}"' not in access_page
    assert "You have not made any requests of this kind." in delete_page
    # the history is collapsible and comes after the form
    assert '<details class="card request"' in export_page
    assert export_page.index("Request my data") < export_page.index(f'id="request-{export.pk}"')


def test_the_default_export_from_the_page_includes_every_scope_the_member_has():
    member = consenting_member("sensitive_data")
    remember(member, body="I take my coffee black")
    remember(
        member,
        body="The red chair is by the window",
        category="spatial",
        scope={"kind": "scene", "session_id": "s", "scene_id": "sc", "room_id": "r"},
    )
    remember(
        member,
        body="Shoulders align best at a fifteen degree tilt",
        category="spatial",
        scope={
            "kind": "pose",
            "session_id": "s",
            "scene_id": "sc",
            "pose_id": "p",
            "avatar_id": "a",
        },
    )
    client = signed_in(member)
    page = client.get(PAGES["export"]).content.decode()
    for flag in ("include_scene_memory", "include_pose_memory", "include_notebooks"):
        assert f'name="{flag}" id="id_{flag}" checked' in page
    # the form as the page sends it by default: every include ticked, no place narrowed
    defaults = {
        name: "on"
        for name in (
            "include_consents",
            "include_opt_outs",
            "include_notebooks",
            "include_session_memory",
            "include_scene_memory",
            "include_pose_memory",
        )
    }
    assert client.post(PAGES["export"], defaults).status_code == 302
    request = process(DataRightsRequest.objects.get(member=member, kind="export"))
    assert set(request.payload.get("scopes") or ScopeKind.values) == set(ScopeKind.values)
    with open_zip(artifact_path(request)) as archive:
        data = json.loads(archive.read("data.json"))
        summary = archive.read("summary.html").decode()
    assert [e["body"] for e in data["scene_memory"]["entries"]] == [
        "The red chair is by the window"
    ]
    assert len(data["pose_memory"]["entries"]) == 1
    assert "The red chair is by the window" in summary and "fifteen degree tilt" in summary


def test_a_pending_request_polls_a_small_status_fragment_that_stops_when_done():
    member = consenting_member()
    remember(member, body="I take my coffee black")
    client = signed_in(member)
    client.post(PAGES["export"], {"include_consents": "on"})
    request = DataRightsRequest.objects.get(member=member)
    status_url = f"{DATA}{request.pk}/status/"
    page = client.get(PAGES["export"]).content.decode()
    assert f'hx-get="{status_url}"' in page and 'hx-trigger="every 3s"' in page
    assert "/static/django_htmx/htmx-2.min.js" in page  # served as a static file
    pending = client.get(status_url).content.decode()
    assert "hx-trigger" in pending and "Download your export" not in pending
    assert "<html" not in pending  # a fragment, not a page
    process(request)
    done = client.get(status_url).content.decode()
    assert "hx-trigger" not in done and "Download your export" in done
    # another member's request is not found
    other = signed_in(consenting_member())
    assert other.get(status_url).status_code == 404


def test_appeal_is_offered_only_where_it_can_change_something():
    member = consenting_member()
    remember(member, body="I take my coffee black")
    export = process(submit(member, "export", {}))
    erasure = process(submit(member, "delete", HARD_DELETE))
    client = signed_in(member)
    assert export.status == erasure.status == "completed"
    assert "Contest this outcome" not in client.get(PAGES["export"]).content.decode()
    assert f'action="{DATA}{erasure.pk}/appeal/"' in client.get(PAGES["delete"]).content.decode()


def test_the_access_report_page_shows_operator_actions_without_content():
    member = consenting_member()
    remember(member, body="I take my coffee black")
    legal = OperatorFactory(role="legal")
    granted(legal, member)
    process(submit(member, "access", ACCESS))
    page = signed_in(member).get(PAGES["access"]).content.decode()
    assert "Who looked: what operators did" in page
    # in words, never an event code (issue 47, item 3)
    assert "was allowed to look" in page and "for a routine review" in page
    assert "inspection.request.transitioned" not in page
    assert "legal" in page
    assert "coffee black" not in page and str(legal.pk) not in page


def test_a_soft_deletion_waiting_out_its_grace_period_does_not_poll():
    member = consenting_member()
    remember(member, body="I take my coffee black")
    erasure = process(submit(member, "delete", SOFT_DELETE))
    assert erasure.status == "in-progress" and erasure.grace_ends_at is not None
    fragment = signed_in(member).get(f"{DATA}{erasure.pk}/status/").content.decode()
    assert "hx-trigger" not in fragment
    assert "Keep my memories (cancel the deletion)" in fragment


def test_a_second_click_shows_the_request_already_running_not_a_new_one():
    member = consenting_member()
    client = signed_in(member)
    first = client.post(PAGES["export"], {"include_consents": "on"}, follow=True)
    assert "Asked for a copy of your data." in first.content.decode()
    again = client.post(PAGES["export"], {"include_consents": "on"}, follow=True)
    page = again.content.decode()
    assert "You already asked for this; it is still running, shown below." in page
    assert "Asked for a copy of your data." not in page
    assert DataRightsRequest.objects.filter(member=member, kind="export").count() == 1
