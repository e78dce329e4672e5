"""The member page, the API and the export agree on what is forgotten: the same ids, and
the text on none of them (issue "Forget means forget": "the member page, the export and
the API agree")."""

import json
import re

import pytest
from django.test import Client

from datarights.export import artifact_path, read_member
from tests.datarights.factories import EXPORT, process, submit
from tests.memory.factories import consenting_member, remember
from tests.stepup import step_up, step_up_client

pytestmark = pytest.mark.django_db

SECRET = "my locker code is 4471 behind the gym"


def test_page_api_and_export_name_the_same_forgotten_memory_and_none_shows_its_text():
    member = consenting_member()
    forgotten = remember(member, subject="locker", body=SECRET).entry
    kept = remember(member, subject="tea", body="Green tea after lunch").entry
    page = Client()
    page.force_login(member)
    step_up(page)

    # The member forgets it on the page, and the page says what happened.
    done = page.post(f"/profile/memory/{forgotten.pk}/forget/", follow=True)
    assert "its text is erased" in done.content.decode()

    # The page: the list shows the kept memory and not the forgotten one's text.
    listing = page.get("/profile/memory/").content.decode()
    assert "Green tea after lunch" in listing and SECRET not in listing
    detail = page.get(f"/profile/memory/{forgotten.pk}/")
    assert SECRET not in detail.content.decode()

    # The API: the same id, forgotten, without its text.
    api = step_up_client(member)
    listed = api.get("/api/v1/me/memories/").json()["results"]
    assert [e["id"] for e in listed] == [str(kept.pk)]  # the list leaves forgotten ones out
    one = api.get(f"/api/v1/me/memories/{forgotten.pk}/")
    assert one.status_code == 200 and one.json()["lifecycle"] == "tombstoned"
    assert SECRET not in one.content.decode()
    revisions = api.get(f"/api/v1/me/memories/{forgotten.pk}/revisions/")
    assert SECRET not in revisions.content.decode()

    # The export: the same id, forgotten, without its text; the kept one in full.
    export = process(submit(member, "export", EXPORT))
    raw = read_member(artifact_path(export)).decode()  # the zip's data.json
    entries = {e["id"]: e for e in json.loads(raw)["entries"]}
    assert [i for i, e in entries.items() if e.get("forgotten")] == [str(forgotten.pk)]
    assert entries[str(kept.pk)]["body"] == "Green tea after lunch"
    assert SECRET not in raw
    # the code itself, as a word: a hex digest may hold the digits by chance
    assert not re.search(r"(?<![0-9a-f])4471(?![0-9a-f])", raw)
