"""The member's controls (issue 19, item 7), enforced by the server over real HTTP:
*Stop using my memories* (recall and the bundle return nothing, the envelope says why,
writes still follow consent), *Forget automatically after…* (the sweep erases older
entries through the one erasure path, no residue, newer ones stay), *Pause a surface*
(that consumer's recall, remember, turn and short-term write are withheld or refused;
another consumer is unaffected) and multi-select forget (all or nothing; a foreign id is
404 for the whole request)."""

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from hierarchy.models import ShortTermMemory
from iris_site.models import AuditEvent
from iris_site.services import token_issue
from memory.forgetting.erasure import memory_erasure_residue
from memory.models import ConversationTurn, MemoryEntry
from memory.sweeps.retention import retention_sweep
from tests.conftest import bearer_client, http_request
from tests.iris_site.factories import ServiceClientFactory
from tests.memory.factories import assert_no_audit_mentions, consenting_member, remember
from tests.stepup import step_up, step_up_token

pytestmark = pytest.mark.django_db(transaction=True)

SETTINGS = "/api/v1/me/memory-settings/"
FORGET = "/api/v1/me/memories/forget/"
DEFAULTS = {
    "stop_using": False,
    "auto_forget_months": {
        "profile": None,
        "session": None,
        "scene": None,
        "pose": None,
        "notebook": None,
    },
    "paused_consumers": [],
}


def bodies(member) -> list[str]:
    """The member's entry bodies, opened (the column is sealed: no lookup reads it)."""
    return list(MemoryEntry.objects.filter(member=member).values_list("body", flat=True))


def turn_texts(member) -> list[str]:
    return list(ConversationTurn.objects.filter(member=member).values_list("text", flat=True))


def surface_token(consumer: str) -> str:
    _, raw = token_issue(owner=ServiceClientFactory(consumer=consumer))
    return raw


def member_token(member) -> str:
    raw = step_up_token(member)
    return raw


def put_settings(live_server, member, **fields):
    body = {"stop_using": False, "auto_forget_months": {}, "paused_consumers": [], **fields}
    response = http_request(
        f"{live_server.url}{SETTINGS}", method="PUT", token=member_token(member), body=body
    )
    assert response.status == 200, response.body
    return response.body


def members_url(live_server, member, path: str) -> str:
    return f"{live_server.url}/api/v1/members/{member.pk}/{path}"


def recall(live_server, member, token, *, surface="assistant", scope=None, query="coffee"):
    return http_request(
        members_url(live_server, member, "recall/"),
        method="POST",
        token=token,
        body={"surface": surface, "scope": scope or {"kind": "profile"}, "query": query},
    )


def bundle(live_server, member, token, scope_id="s-1"):
    return http_request(
        members_url(live_server, member, "context-bundle/"),
        method="POST",
        token=token,
        body={"scope_id": scope_id, "query": "coffee"},
    )


def stm_write(live_server, member, token, content="Wants the window open", scope_id="s-1"):
    return http_request(
        members_url(live_server, member, "short-term/"),
        method="POST",
        token=token,
        body={
            "scope_kind": "user_session",
            "scope_id": scope_id,
            "category": "preference",
            "content": content,
        },
    )


SESSION_WRITE = {
    "scope": {"kind": "session", "session_id": "s-1"},
    "category": "preference",
    "subject": "tea",
    "body": "Likes green tea in the afternoon",
    "origin": "model-inferred",
}


# --- the settings API ------------------------------------------------------------------------


def test_the_settings_start_at_the_defaults_and_put_replaces_them_strictly(live_server):
    member = consenting_member()
    token = member_token(member)
    got = http_request(f"{live_server.url}{SETTINGS}", token=token)
    assert got.status == 200 and got.body == DEFAULTS
    saved = put_settings(
        live_server,
        member,
        stop_using=True,
        auto_forget_months={"profile": 12, "session": 3, "scene": None},
        paused_consumers=["tara", "nisaba"],
    )
    assert saved["stop_using"] is True
    assert saved["auto_forget_months"]["profile"] == 12
    assert saved["auto_forget_months"]["session"] == 3
    assert saved["auto_forget_months"]["scene"] is None
    assert saved["paused_consumers"] == ["nisaba", "tara"]
    assert http_request(f"{live_server.url}{SETTINGS}", token=token).body == saved
    # audited with enum values and counts only
    event = AuditEvent.objects.get(target_member_id=member.pk, action="memory.settings.changed")
    assert event.payload["paused_count"] == 2 and event.payload["stop_using"] is True
    # strict input: unknown fields, bad months, unknown scopes and surfaces, non-booleans
    for bad in [
        {**DEFAULTS, "extra": 1},
        {**DEFAULTS, "auto_forget_months": {"profile": 6}},
        {**DEFAULTS, "auto_forget_months": {"profile": True}},
        {**DEFAULTS, "auto_forget_months": {"crisis": 3}},
        {**DEFAULTS, "paused_consumers": ["nobody"]},
        {**DEFAULTS, "stop_using": "yes"},
        {"stop_using": False},
    ]:
        refused = http_request(f"{live_server.url}{SETTINGS}", method="PUT", token=token, body=bad)
        assert refused.status == 400, bad
        assert "error" in refused.body
    assert http_request(f"{live_server.url}{SETTINGS}", token=token).body == saved
    # a surface may not read or change them
    surface = http_request(f"{live_server.url}{SETTINGS}", token=surface_token("assistant"))
    assert surface.status == 403


# --- stop using my memories ---------------------------------------------------------------


def test_stop_using_withholds_recall_and_the_bundle_and_writes_still_follow_consent(
    live_server,
):
    member = consenting_member()
    remember(member, body="I take my coffee black", subject="coffee")
    remember(member, scope={"kind": "session", "session_id": "s-1"}, body="Coffee in session")
    token = surface_token("assistant")
    assert stm_write(live_server, member, token).status == 201
    before = recall(live_server, member, token)
    assert [e["body"] for e in before.body["entries"]] == ["I take my coffee black"]
    assert len(bundle(live_server, member, token).body["ltm"]["entries"]) == 2
    # when
    put_settings(live_server, member, stop_using=True)
    # then recall returns nothing of the member's long-term memory, and says why
    after = recall(live_server, member, token)
    assert after.status == 200
    assert after.body["entries"] == []
    assert after.body["audit_envelope"]["suppression_counts"] == {"member-stopped-use": 1}
    composed = bundle(live_server, member, token).body
    assert composed["ltm"]["entries"] == []
    assert composed["ltm"]["audit_envelope"]["suppression_counts"] == {"member-stopped-use": 2}
    # (the short-term row is working memory, not a long-term memory: it stays usable)
    assert [r["content"] for r in composed["stm"]] == ["Wants the window open"]
    # and writes still follow consent: a consented write is stored
    stored = http_request(
        members_url(live_server, member, "memories/"),
        method="POST",
        token=token,
        body=SESSION_WRITE,
    )
    assert stored.status == 201
    assert SESSION_WRITE["body"] in bodies(member)
    # the member still sees everything on their own list
    mine = http_request(f"{live_server.url}/api/v1/me/memories/", token=member_token(member))
    assert len(mine.body["results"]) == 3
    # and turning it off brings recall back
    put_settings(live_server, member, stop_using=False)
    again = recall(live_server, member, token)
    assert [e["body"] for e in again.body["entries"]] == ["I take my coffee black"]


def test_stop_using_withholds_a_short_term_copy_of_a_long_term_memory(live_server):
    member = consenting_member()
    entry = remember(member, body="I take my coffee black", subject="coffee").entry
    token = surface_token("assistant")
    copied = http_request(
        members_url(live_server, member, "short-term/"),
        method="POST",
        token=token,
        body={
            "scope_kind": "user_session",
            "scope_id": "s-1",
            "category": "preference",
            "content": "Coffee black, from memory",
            "related_entry_ids": [str(entry.pk)],
        },
    )
    assert copied.status == 201, copied.body
    put_settings(live_server, member, stop_using=True)
    rows = http_request(
        members_url(live_server, member, "short-term/") + "?scope_id=s-1", token=token
    ).body
    assert rows["results"] == [] and rows["withheld"] == {"member-stopped-use": 1}


# --- forget automatically after… --------------------------------------------------------------


def test_the_sweep_erases_entries_older_than_the_members_choice_and_keeps_newer(live_server):
    member = consenting_member()
    start = timezone.now()
    old = remember(member, body="Old habit: kestrel-lantern tea", subject="tea", now=start).entry
    newer = remember(
        member, body="Newer habit: oat milk", subject="milk", now=start + timedelta(days=60)
    ).entry
    notebook_old = remember(
        member,
        scope={"kind": "notebook", "notebook_id": "nb-1"},
        body="Notebook note about biscuits",
        subject="biscuits",
        now=start,
    ).entry
    put_settings(live_server, member, auto_forget_months={"profile": 3})
    # when the sweep runs 100 days on (3 months = 91 days)
    retention_sweep(now=start + timedelta(days=100))
    # then the old profile entry is erased, with no residue anywhere
    old.refresh_from_db()
    newer.refresh_from_db()
    assert old.lifecycle == "tombstoned" and "kestrel" not in old.body
    assert (
        memory_erasure_residue(
            member_id=member.pk,
            entry_ids=[str(old.pk)],
            texts=["Old habit: kestrel-lantern tea"],
            purge=False,
        )
        == {}
    )
    # the newer one and other scopes (no choice there) are left as they were
    assert newer.lifecycle == "active"
    notebook_old.refresh_from_db()
    assert notebook_old.body == "Notebook note about biscuits"
    # audited with counts, never the text
    event = AuditEvent.objects.get(
        target_member_id=member.pk, action="memory.retention.member_auto_forget"
    )
    assert event.payload["erased_count"] == 1
    assert event.payload["erased"] == [{"scope_kind": "profile", "months": 3, "erased_count": 1}]
    assert_no_audit_mentions("kestrel-lantern")
    # idempotent: the next sweep finds nothing more
    retention_sweep(now=start + timedelta(days=100))
    assert (
        AuditEvent.objects.filter(
            target_member_id=member.pk, action="memory.retention.member_auto_forget"
        ).count()
        == 1
    )


def test_never_and_other_members_are_left_alone_by_the_override(live_server):
    member, other = consenting_member(), consenting_member()
    start = timezone.now()
    mine = remember(member, body="Kept forever", now=start).entry
    theirs = remember(other, body="Someone else's", now=start).entry
    put_settings(live_server, member, auto_forget_months={"profile": None, "session": 18})
    put_settings(live_server, other, auto_forget_months={"session": 3})
    retention_sweep(now=start + timedelta(days=800))
    mine.refresh_from_db()
    theirs.refresh_from_db()
    assert mine.lifecycle == "active" and theirs.lifecycle == "active"


# --- pause a surface ------------------------------------------------------------------------------


def test_a_paused_surface_neither_reads_nor_writes_and_another_is_unaffected(live_server):
    member = consenting_member()
    remember(member, body="I take my coffee black", subject="coffee")
    tara, assistant = surface_token("tara"), surface_token("assistant")
    assert recall(live_server, member, tara, surface="tara").body["entries"] != []
    assert stm_write(live_server, member, tara, content="Before the pause").status == 201
    # when the member pauses Tara
    put_settings(live_server, member, paused_consumers=["tara"])
    # then Tara's recall returns nothing, and says why
    withheld = recall(live_server, member, tara, surface="tara")
    assert withheld.status == 200 and withheld.body["entries"] == []
    assert withheld.body["audit_envelope"]["suppression_counts"] == {"surface-paused": 1}
    # its bundle, short-term reads and memories withhold everything
    composed = bundle(live_server, member, tara).body
    assert composed["ltm"]["entries"] == [] and composed["stm"] == []
    assert composed["stm_withheld"] == {"surface-paused": 1}
    # its remember, turn and short-term writes are refused with 422 surface-paused
    refused = {
        "remember": http_request(
            members_url(live_server, member, "memories/"),
            method="POST",
            token=tara,
            body=SESSION_WRITE,
        ),
        "turn": http_request(
            members_url(live_server, member, "sessions/s-1/turns/"),
            method="POST",
            token=tara,
            body={"speaker": "member", "text": "Paused turn"},
        ),
        "short-term": stm_write(live_server, member, tara, content="During the pause"),
    }
    for path, response in refused.items():
        assert response.status == 422, (path, response.body)
        assert response.body["error"]["code"] == "surface-paused", path
    assert SESSION_WRITE["body"] not in bodies(member)
    assert "Paused turn" not in turn_texts(member)
    assert ShortTermMemory.objects.filter(member=member).count() == 1
    # every refusal is audited (ids and codes only)
    codes = [
        (e.payload["reason"], e.payload["consumer"])
        for e in AuditEvent.objects.filter(
            target_member_id=member.pk, action="memory.write.refused"
        )
    ]
    assert codes.count(("surface-paused", "tara")) == 3
    # another surface is unaffected
    assert recall(live_server, member, assistant).body["entries"] != []
    assert (
        http_request(
            members_url(live_server, member, "memories/"),
            method="POST",
            token=assistant,
            body=SESSION_WRITE,
        ).status
        == 201
    )
    turn = http_request(
        members_url(live_server, member, "sessions/s-1/turns/"),
        method="POST",
        token=assistant,
        body={"speaker": "member", "text": "Assistant turn"},
    )
    assert turn.status == 201
    assert stm_write(live_server, member, assistant, content="Assistant row").status == 201
    # and resuming Tara lets it read again
    put_settings(live_server, member, paused_consumers=[])
    assert recall(live_server, member, tara, surface="tara").body["entries"] != []


# --- forget several at once -------------------------------------------------------------------


def test_forgetting_selected_memories_is_all_or_nothing(live_server):
    member, other = consenting_member(), consenting_member()
    first = remember(member, body="Likes the kestrel-lantern café", subject="cafe").entry
    second = remember(
        member, body="Works on the night shift", subject="shift", category="work"
    ).entry
    kept = remember(member, body="Keeps a cat", subject="cat").entry
    foreign = remember(other, body="Not mine at all", subject="x").entry
    token = member_token(member)
    # another member's id among them: 404 for the whole request, nothing forgotten
    refused = http_request(
        f"{live_server.url}{FORGET}",
        method="POST",
        token=token,
        body={"ids": [str(first.pk), str(foreign.pk)]},
    )
    assert refused.status == 404
    for entry in (first, foreign):
        entry.refresh_from_db()
        assert entry.lifecycle == "active"
    # strict input
    for bad in [{"ids": []}, {"ids": ["nope"]}, {"ids": [str(first.pk)], "all": True}, {}]:
        answer = http_request(f"{live_server.url}{FORGET}", method="POST", token=token, body=bad)
        assert answer.status == 400, bad
    # when
    done = http_request(
        f"{live_server.url}{FORGET}",
        method="POST",
        token=token,
        body={"ids": [str(first.pk), str(second.pk)]},
    )
    # then both are forgotten, each as one forget is, and counted by category
    assert done.status == 200, done.body
    assert done.body["forgotten_count"] == 2
    assert sorted(done.body["forgotten_ids"]) == sorted([str(first.pk), str(second.pk)])
    assert done.body["by_category"] == {"preference": 1, "work": 1}
    for entry in (first, second):
        entry.refresh_from_db()
        assert entry.lifecycle == "tombstoned"
    assert (
        memory_erasure_residue(
            member_id=member.pk,
            entry_ids=[str(first.pk), str(second.pk)],
            texts=["Likes the kestrel-lantern café", "Works on the night shift"],
            purge=False,
        )
        == {}
    )
    kept.refresh_from_db()
    assert kept.lifecycle == "active"
    # an id already forgotten is no longer one of the member's memories: 404
    again = http_request(
        f"{live_server.url}{FORGET}", method="POST", token=token, body={"ids": [str(first.pk)]}
    )
    assert again.status == 404
    assert_no_audit_mentions("kestrel-lantern", "night shift")


# --- the page (no browser) ---------------------------------------------------------------------


def signed_in(user) -> Client:
    """Signed in, with the password confirmed just now (these pages forget)."""
    client = Client()
    client.force_login(user)
    return step_up(client)


def test_the_page_controls_change_the_settings_the_server_enforces():
    member = consenting_member()
    client = signed_in(member)
    page = client.get("/profile/memory/controls/").content.decode()
    assert "How Iris uses your memory" in page and "Stop using my memories" in page
    stopped = client.post(
        "/profile/memory/settings/", {"part": "stop-using", "stop_using": "on"}, follow=True
    ).content.decode()
    assert "Iris has stopped using your memories" in stopped
    assert "Start using my memories again" in stopped
    client.post(
        "/profile/memory/settings/",
        {"part": "auto-forget", "auto_forget_profile": "12", "auto_forget_session": "never"},
    )
    paused = client.post(
        "/profile/memory/settings/", {"part": "surfaces", "paused": ["tara", "bogus"]}, follow=True
    ).content.decode()
    assert "Paused: Tara." in paused
    settings = bearer_client(member).get(SETTINGS).json()
    assert settings["stop_using"] is True
    assert settings["auto_forget_months"]["profile"] == 12
    assert settings["paused_consumers"] == ["tara"]
    # the other controls are kept when one changes
    client.post("/profile/memory/settings/", {"part": "stop-using", "stop_using": "off"})
    settings = bearer_client(member).get(SETTINGS).json()
    assert settings["stop_using"] is False and settings["paused_consumers"] == ["tara"]
    bad = client.post(
        "/profile/memory/settings/", {"part": "auto-forget", "auto_forget_profile": "6"}
    )
    assert bad.status_code == 302
    assert bearer_client(member).get(SETTINGS).json()["auto_forget_months"]["profile"] == 12


def test_the_page_forgets_selected_memories_with_one_confirmation():
    member, other = consenting_member(), consenting_member()
    first = remember(member, body="Likes the kestrel-lantern café", subject="cafe").entry
    second = remember(member, body="Works on the night shift", subject="s", category="work").entry
    foreign = remember(other, body="Not mine", subject="x").entry
    client = signed_in(member)
    index = client.get("/profile/memory/").content.decode()
    assert f'value="{first.pk}" form="forget-selected"' in index
    assert "Forget selected" in index
    confirm = client.get("/profile/memory/forget-selected/", {"ids": [first.pk, second.pk]})
    html = confirm.content.decode()
    assert confirm.status_code == 200
    assert "Forget 2 memories?" in html and "kestrel-lantern" in html and "night shift" in html
    assert (
        client.get("/profile/memory/forget-selected/", {"ids": [first.pk, foreign.pk]}).status_code
        == 404
    )
    assert (
        client.post("/profile/memory/forget-selected/", {"ids": [first.pk, foreign.pk]}).status_code
        == 404
    )
    first.refresh_from_db()
    assert first.lifecycle == "active"
    done = client.post(
        "/profile/memory/forget-selected/", {"ids": [first.pk, second.pk]}, follow=True
    )
    text = done.content.decode()
    assert "Forgot 2 memories: 1 about " in text and "1 about work" in text
    assert "kestrel-lantern" not in text
    for entry in (first, second):
        entry.refresh_from_db()
        assert entry.lifecycle == "tombstoned"
