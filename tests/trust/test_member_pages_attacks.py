"""Attacks on the member's pages of issue 47 ("What Iris may do", the consequence
previews, the pending erase, promotion notices, relationship times), as a curious member,
another member, a hostile page and a racing second request would try them. Each hole
found is pinned here by its regression test; what held is pinned too."""

from datetime import UTC, datetime

import pytest
from django.test import Client
from hypothesis import given
from hypothesis import strategies as st
from rest_framework.test import APIClient

from consent.enums import OptOutCategory
from consent.selectors import consent_gate_state
from datarights.summary import WHY_UNWORDED, report_looks, why_words
from inspection.enums import ReasonCode
from iris_site.audit.events import Actor
from iris_site.models import AuditEvent
from memory.controls import member_memory_settings_get
from memory.entities.when import EARLIEST_YEAR, stated_times
from memory.forgetting.services import memory_clear_cancel, memory_clear_request
from memory.models import MemoryEntity, MemoryEntry, MemoryNotice
from memory.pauses import memory_pause
from memory.selectors import memory_off_the_record, memory_pending_clear
from tests.iris_site.factories import PASSWORD
from tests.memory.factories import consenting_member, remember
from tests.memory.test_entities_time import JUNE, sam
from tests.memory.test_promotion_notices import NOVELS, promoted
from tests.stepup import step_up, step_up_client

pytestmark = pytest.mark.django_db(transaction=True)

OPT_OUTS = "/profile/memory/opt-outs/"
SETTINGS = "/profile/memory/settings/"
CLEAR = "/profile/memory/clear/"
MEDICAL = "/profile/memory/consents/category:medical/withdraw/"
ME_API = "/api/v1/me/"


def signed_in(member, *, csrf: bool = False) -> Client:
    client = Client(enforce_csrf_checks=csrf)
    client.force_login(member)
    return step_up(client)


def opted_out(member) -> frozenset[str]:
    return consent_gate_state(member_id=member.pk)[1]


def consents(member) -> frozenset[str]:
    return consent_gate_state(member_id=member.pk)[0].types


def live(member) -> int:
    return MemoryEntry.objects.filter(member=member).exclude(lifecycle="tombstoned").count()


def messages_of(response) -> str:
    return " ".join(str(m) for m in response.context["messages"]) if response.context else ""


# --- a GET that changed state ------------------------------------------------------------


@pytest.mark.parametrize("category", OptOutCategory.values)
def test_a_get_never_turns_a_kind_of_memory_back_on(category):
    """Hole: GET /profile/memory/opt-outs/?category=X&state=on turned X back on (the view
    read GET like POST for "on"), so an <img> on any page a member opened undid their
    opt-out with no CSRF check. A GET now changes nothing."""
    member = consenting_member()
    client = signed_in(member)
    client.post(OPT_OUTS, {"category": category, "state": "off", "confirm": "1"})
    assert category in opted_out(member)
    response = client.get(OPT_OUTS, {"category": category, "state": "on"})
    assert response.status_code == 302
    assert category in opted_out(member)
    # the GET for "off" only asks (the preview), it does not turn anything off
    other = next(c for c in OptOutCategory.values if c != category)
    assert client.get(OPT_OUTS, {"category": other, "state": "off"}).status_code == 200
    assert other not in opted_out(member)


def test_the_new_posts_need_the_csrf_token():
    member = consenting_member(
        "category:medical",
    )
    remember(member, category="medical", subject="asthma", body="I use an inhaler")
    client = signed_in(member, csrf=True)
    category = OptOutCategory.values[0]
    for url, body in [
        (OPT_OUTS, {"category": category, "state": "off", "confirm": "1"}),
        (SETTINGS, {"part": "stop-using", "stop_using": "on"}),
        (MEDICAL, {"confirm": "1", "forgets": "1"}),
    ]:
        assert client.post(url, body).status_code == 403, url
    assert category not in opted_out(member)
    assert "category:medical" in consents(member)
    assert live(member) == 1


# --- a pending erase: hidden switches cannot be posted unseen -----------------------------


def test_while_an_erase_waits_the_hidden_switches_are_refused_by_the_server():
    """Hole: the page hid the switches while a full clear waited ("your settings are put
    aside: cancel to see and change them again"), but a POST straight to them changed
    the settings unseen. The server now refuses them, nothing changed, and says why."""
    member = consenting_member()
    remember(member, subject="coffee", body="I take my coffee black")
    client = signed_in(member)
    before = member_memory_settings_get(member_id=member.pk)
    assert client.post(CLEAR, {"password": PASSWORD}).status_code == 302
    assert memory_pending_clear(member_id=member.pk) is not None
    category = OptOutCategory.values[0]
    attempts = [
        (OPT_OUTS, {"category": category, "state": "off", "confirm": "1"}),
        (SETTINGS, {"part": "stop-using", "stop_using": "on"}),
        (SETTINGS, {"part": "auto-forget", "auto_forget_profile": "3"}),
    ]
    for url, body in attempts:
        response = client.post(url, body, follow=True)
        assert "settings are put aside: nothing was changed" in messages_of(response), url
        assert "Cancel and keep my memory" in response.content.decode()
    assert client.get(OPT_OUTS, {"category": category, "state": "off"}).status_code == 302
    assert category not in opted_out(member)
    assert member_memory_settings_get(member_id=member.pk) == before
    # a second erase is refused too (held before this work: 409 clear-pending)
    assert AuditEvent.objects.filter(action="memory.clear.requested").count() == 1
    # the cancel the page offers still works, and the switches answer again
    client.post(CLEAR, {"cancel": "1"})
    assert memory_pending_clear(member_id=member.pk) is None
    client.post(OPT_OUTS, {"category": category, "state": "off", "confirm": "1"})
    assert category in opted_out(member)


def test_while_an_erase_waits_the_api_refuses_the_same_switches():
    """Hole: the pages refused the hidden switches while a full clear waited, but
    `PUT /api/v1/me/memory-settings/` and `POST /api/v1/me/opt-outs/` changed them: one
    rule for one door. Both now come through the same services, which refuse with 409
    `clear-pending` and the same words, nothing changed; reading them still works."""
    member = consenting_member()
    remember(member, subject="coffee", body="I take my coffee black")
    api = APIClient()
    api.force_login(member)
    memory_clear_request(member=member, actor=Actor.of(member))
    before = member_memory_settings_get(member_id=member.pk)
    category = OptOutCategory.values[0]
    for method, url, body in (
        ("put", ME_API + "memory-settings/", {**before.as_dict(), "stop_using": True}),
        ("post", ME_API + "opt-outs/", {"category": category, "opted_out": True}),
    ):
        response = getattr(api, method)(url, body, format="json")
        assert response.status_code == 409, url
        assert response.json()["error"]["code"] == "clear-pending"
        assert "settings are put aside: nothing was changed" in response.json()["error"]["message"]
        assert api.get(url).status_code == 200
    assert member_memory_settings_get(member_id=member.pk) == before
    assert category not in opted_out(member)
    memory_clear_cancel(member=member, actor=Actor.of(member))
    response = api.post(
        ME_API + "opt-outs/", {"category": category, "opted_out": True}, format="json"
    )
    assert response.status_code == 201
    assert category in opted_out(member)


def entries_as_they_are(member) -> list[tuple]:
    rows = MemoryEntry.objects.filter(member=member)
    return sorted(rows.values_list("pk", "lifecycle", "origin", "scope_kind", "revision_id"))


def test_while_an_erase_waits_no_door_changes_a_hidden_memory():
    """Found by review: while a full clear waited, pause, resume, confirm, a scope change,
    a conflict question's answer and off the record were all taken (an edit was refused),
    so a cancel no longer brought back what was there. Every one is now refused (409
    `clear-pending` over the API, a message on the pages), nothing changed."""
    member = consenting_member()
    remember(member, subject="coffee", body="I take my coffee black")
    notice = remember(
        member, subject="coffee", body="Drinks tea now", origin="model-inferred"
    ).notice
    inferred = remember(
        member, subject="music", body="Likes jazz on Sundays", origin="model-inferred"
    ).entry
    session = remember(
        member,
        subject="walks",
        body="Walks by the canal",
        scope={"kind": "session", "session_id": "s-9"},
        session_id="s-9",
    ).entry
    active = remember(member, subject="tea", body="Green tea after lunch").entry
    paused = remember(member, subject="bread", body="Bakes bread on Fridays").entry
    memory_pause(entry=paused, actor=Actor.of(member))
    memory_clear_request(member=member, actor=Actor.of(member))
    before = entries_as_they_are(member)
    api = step_up_client(member)
    mine = f"{ME_API}memories/"
    for method, url, body in (
        ("post", f"{mine}{active.pk}/pause/", {}),
        ("post", f"{mine}{paused.pk}/resume/", None),
        ("post", f"{mine}{inferred.pk}/confirm/", None),
        ("post", f"{mine}{session.pk}/scope/", {"scope": {"kind": "profile"}}),
        ("post", f"{ME_API}notices/{notice.pk}/answer/", {"accept": True}),
        ("put", f"{ME_API}off-the-record/", {"active": True}),
    ):
        response = getattr(api, method)(url, body, format="json")
        # a door that names a hidden memory or question does not find it; the rest refuse
        assert response.status_code in (404, 409), (url, response.content)
        if response.status_code == 409:
            assert response.json()["error"]["code"] == "clear-pending"
    page = signed_in(member)
    for url, body in (
        (f"/profile/memory/notices/{notice.pk}/answer/", {"answer": "update"}),
        ("/profile/memory/off-the-record/", {"active": "on"}),
        (f"/profile/memory/{active.pk}/pause/", {}),
    ):
        response = page.post(url, body, follow=True)
        assert response.status_code in (200, 404), url  # hidden, or refused with words
        if response.status_code == 200:
            said = messages_of(response)
            assert "nothing new is stored" in said or "put aside" in said, url
    assert entries_as_they_are(member) == before
    assert not memory_off_the_record(member_id=member.pk, session_id="")
    assert MemoryNotice.objects.get(pk=notice.pk).state == MemoryNotice.State.OPEN


def test_while_an_erase_waits_no_door_shows_a_hidden_memory():
    """Found by review: while a full clear waited the list was empty, but every door that
    names a memory or a person still showed it whole: the entry and its revisions over
    the API, the notices quoting it, the person's detail, the memory's page and history,
    the person's page. Each now answers as for a memory Iris does not have (404, or an
    empty list); cancelling shows them again."""
    member = consenting_member()
    entry = remember(member, subject="coffee", body="I take my coffee black").entry
    remember(member, subject="coffee", body="Drinks tea now", origin="model-inferred")
    sam(member, now=JUNE, note="my sister since 2019", body="Sam works at the bakery")
    person = MemoryEntity.objects.get(member=member, kind="person")
    memory_clear_request(member=member, actor=Actor.of(member))
    api, page = step_up_client(member), signed_in(member)
    for url in (f"{ME_API}memories/{entry.pk}/", f"{ME_API}memories/{entry.pk}/revisions/"):
        response = api.get(url)  # not shown, and the API says why
        assert response.status_code == 409, url
        assert response.json()["error"]["code"] == "clear-pending", url
    assert api.get(f"{ME_API}entities/{person.pk}/").status_code == 404
    for url in (f"{ME_API}notices/", f"{ME_API}entities/"):
        response = api.get(url)
        assert response.status_code == 200, url
        body = response.json()
        assert (body["results"] if isinstance(body, dict) else body) == [], url
    for url in (
        f"/profile/memory/{entry.pk}/",
        f"/profile/memory/{entry.pk}/history/",
        f"/profile/memory/people/{person.pk}/",
    ):
        assert page.get(url).status_code == 404, url
    for url in ("/profile/memory/notices/", "/profile/memory/people/"):
        text = page.get(url).content.decode()
        assert "coffee" not in text and "tea now" not in text and "Samwise" not in text, url
    memory_clear_cancel(member=member, actor=Actor.of(member))
    assert api.get(f"{ME_API}memories/{entry.pk}/").status_code == 200
    assert api.get(f"{ME_API}entities/{person.pk}/").status_code == 200


# --- a preview and its confirm, with a memory written in between -------------------------


def test_a_memory_kept_after_the_preview_is_not_forgotten_unseen():
    """Hole: the withdrawal's confirm forgot what the cascade found at the confirm, so a
    medical memory written after the page said "Forgotten: 1" was erased too, unseen and
    for good. The confirm now carries the count the page showed; more to forget than
    that and nothing is withdrawn, the page counts again. (A memory kept after the
    preview that is only *hidden* is not guarded: hiding is undone by allowing it again,
    and the result message counts what was hidden from what the server holds.)"""
    member = consenting_member("category:medical")
    first = remember(member, category="medical", subject="asthma", body="I use an inhaler")
    client = signed_in(member)
    page = client.get(MEDICAL).content.decode()
    assert 'name="forgets" value="1"' in page
    # a racing write: a surface keeps another medical memory after the page was shown
    later = remember(member, category="medical", subject="knee", body="My left knee hurts")
    response = client.post(MEDICAL, {"confirm": "1", "forgets": "1"}, follow=True)
    assert "Nothing was withdrawn" in messages_of(response)
    assert "category:medical" in consents(member)
    assert live(member) == 2
    # the page, shown again, counts both; confirming that forgets both
    again = response.content.decode()
    assert 'name="forgets" value="2"' in again
    assert "My left knee hurts" in again
    done = client.post(MEDICAL, {"confirm": "1", "forgets": "2"}, follow=True)
    assert "Forgot 2 memories" in messages_of(done)
    assert "category:medical" not in consents(member)
    assert not MemoryEntry.objects.filter(pk__in=[first.entry.pk, later.entry.pk]).exclude(
        lifecycle="tombstoned"
    )
    # a garbled count is not a licence either, nor an error
    member2 = consenting_member("category:medical")
    remember(member2, category="medical", subject="asthma", body="I use an inhaler")
    for garbled in ("-1", "²"):
        response = signed_in(member2).post(MEDICAL, {"confirm": "1", "forgets": garbled})
        assert response.status_code == 302
    assert "category:medical" in consents(member2)


@pytest.mark.parametrize("months", ["²", "١٢", "-3", "3.0", "99"])
def test_a_garbled_number_of_months_is_refused_not_an_error(months):
    """Hole: "²" passed `str.isdigit` and then failed `int`, a 500."""
    member = consenting_member()
    before = member_memory_settings_get(member_id=member.pk)
    response = signed_in(member).post(
        SETTINGS, {"part": "auto-forget", "auto_forget_profile": months}, follow=True
    )
    assert "Choose 3, 12 or 18 months, or never." in messages_of(response)
    assert member_memory_settings_get(member_id=member.pk) == before


FORGET_CATEGORY = "/profile/memory/forget-category/"


def test_forgetting_a_category_forgets_only_what_its_page_counted():
    """Hole: "Forget everything in one category" forgot what the confirm found, so a
    memory kept after the page said "This forgets 1" went too, unseen and for good; and
    the confirm page kept the category choosable, so "Forget 1 memory" could be sent for
    another category whose count was never shown. The category is now fixed on the
    confirm and the count goes with it: more by then, and nothing is forgotten."""
    member = consenting_member("category:medical")
    remember(member, category="medical", subject="asthma", body="I use an inhaler")
    client = signed_in(member)
    page = client.get(FORGET_CATEGORY, {"category": "medical"}).content.decode()
    assert 'name="forgets" value="1"' in page
    assert '<select name="category"' not in page
    assert 'type="hidden" name="category" value="medical"' in page
    remember(member, category="medical", subject="knee", body="My left knee hurts")
    response = client.post(
        FORGET_CATEGORY, {"category": "medical", "confirm": "1", "forgets": "1"}, follow=True
    )
    assert "Nothing was forgotten" in messages_of(response)
    assert live(member) == 2
    assert 'name="forgets" value="2"' in response.content.decode()
    for garbled in ("-1", "one", "", "²", "\uff11"):
        client.post(FORGET_CATEGORY, {"category": "medical", "confirm": "1", "forgets": garbled})
        assert live(member) == 2
    done = client.post(
        FORGET_CATEGORY, {"category": "medical", "confirm": "1", "forgets": "2"}, follow=True
    )
    assert "Forgot 2 memories" in messages_of(done)
    assert live(member) == 0


def test_a_preview_shows_only_the_members_own_memories_and_logs_no_words(caplog):
    """Held: the examples are the member's own, never another member's; nothing of the
    words reaches the log or the audit record of the withdrawal."""
    member = consenting_member("category:medical")
    other = consenting_member("category:medical")
    remember(member, category="medical", subject="asthma", body="I use an inhaler")
    remember(other, category="medical", subject="knee", body="Secret knee surgery note")
    client = signed_in(member)
    page = client.get(MEDICAL).content.decode()
    assert "I use an inhaler" in page and "Secret knee surgery" not in page
    client.post(MEDICAL, {"confirm": "1", "forgets": "1"})
    assert "inhaler" not in caplog.text
    for event in AuditEvent.objects.all():
        assert "inhaler" not in str(event.payload)
    assert live(other) == 1


# --- notices ---------------------------------------------------------------------------


def test_a_conflict_question_takes_only_its_own_choices():
    """Hole: a conflict question answered with another question's choice ("forget",
    "confirm") or none was taken as "keep what I said": the proposal dropped, the message
    "Kept what you said before" though the member asked to forget. Now refused, the
    question left open."""
    member = consenting_member()
    remember(member, subject="coffee", body="I take my coffee black")
    notice = remember(
        member, subject="coffee", body="Takes coffee with oat milk", origin="model-inferred"
    ).notice
    client = signed_in(member)
    url = f"/profile/memory/notices/{notice.pk}/answer/"
    for answer in ("forget", "confirm", ""):
        response = client.post(url, {"answer": answer}, follow=True)
        assert "Choose “Update my memory” or “Keep what I said”" in messages_of(response)
        assert MemoryNotice.objects.get(pk=notice.pk).state == "open"
    assert not AuditEvent.objects.filter(action="memory.conflict.answered").exists()
    client.post(url, {"answer": "keep"})
    assert MemoryNotice.objects.get(pk=notice.pk).state != "open"


def test_promotion_notices_hold_against_another_member_a_second_answer_and_a_get():
    """Held: another member's notice is 404 and untouched; a GET answers nothing; a
    second answer is refused; the audit payload is ids and the choice only."""
    member = consenting_member()
    promoted(member)
    notice = MemoryNotice.objects.get(member=member)
    url = f"/profile/memory/notices/{notice.pk}/answer/"
    stranger = signed_in(consenting_member())
    assert stranger.post(url, {"answer": "forget"}).status_code == 404
    api = f"/api/v1/me/notices/{notice.pk}/answer/"
    assert stranger.post(api, {"answer": "keep"}, content_type="application/json").status_code in (
        403,
        404,
    )
    client = signed_in(member)
    assert client.get(url, {"answer": "keep"}).status_code == 405
    assert MemoryNotice.objects.get(pk=notice.pk).state == "open"
    client.post(url, {"answer": "keep"})
    second = client.post(url, {"answer": "forget"}, follow=True)
    assert "already answered" in messages_of(second)
    assert MemoryNotice.objects.get(pk=notice.pk).state == "kept"
    assert MemoryEntry.objects.get(pk=notice.entry_id).lifecycle != "tombstoned"
    [event] = AuditEvent.objects.filter(action="memory.promotion.answered")
    assert set(event.payload) == {"notice_id", "entry_id", "answer"}
    assert NOVELS.lower() not in str(event.payload).lower()


# --- relationship times ----------------------------------------------------------------

TOLD = datetime(2026, 6, 3, tzinfo=UTC)


@pytest.mark.parametrize(
    "note",
    [
        "since 0001-01-01",
        "we met on 1 January 0001",
        "married 1066-10-14",
        "since 1899-12-31",
        "since March 0000",
        "since 0000-01-01",
        "we met on 1 January 0000",
        "until 0000-00-00",
    ],
)
def test_an_absurd_dated_time_stays_open(note):
    """Hole: a dated form ("since 0001-01-01") was read as true from the year 1 (the bare
    year form already read only 19xx and 20xx). It now stays open, as any unclear time."""
    assert stated_times(note, told=TOLD).start is None


@given(
    st.lists(
        st.one_of(
            st.sampled_from(["since", "until", "married", "met on", "broke up", "from"]),
            st.sampled_from(["March", "1", "31", "February", "last", "year", "ago", "two"]),
            st.integers(0, 9999).map(lambda y: f"{y:04d}"),
            st.from_regex(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", fullmatch=True),
            st.text(max_size=5),
        ),
        max_size=8,
    ).map(" ".join)
)
def test_no_words_make_reading_a_time_fail(note):
    """Hole: "since March 0000" raised (year 0 is no date) and a write answered 500. Any
    words now read as a time or stay open, never an error."""
    stated = stated_times(note, told=TOLD)
    for point in (stated.start, stated.end):
        assert point is None or EARLIEST_YEAR <= point.at.year <= TOLD.year


@pytest.mark.parametrize(
    "note", ["until 2030", "broke up 2026-06-04", "since 4 June 2026", "since 9999-12-31"]
)
def test_a_future_time_stays_open(note):
    stated = stated_times(note, told=TOLD)
    assert stated.start is None and stated.end is None


def test_a_dated_time_from_1900_on_is_still_read():
    assert stated_times("since 1950-05-01", told=TOLD).start.at.year == 1950


# --- the access report's words -----------------------------------------------------------


@pytest.mark.parametrize("code", [c.value for c in ReasonCode])
def test_every_reason_a_look_ends_with_has_words(code):
    """Hole: a reason code without words ("grant-expired", "cross-tenant", "declined",
    "expired") was shown as "for a reason recorded as grant expired": the code with its
    dashes dropped."""
    assert why_words(code) != WHY_UNWORDED
    assert code.replace("-", " ") not in why_words(code)


@pytest.mark.parametrize(
    "value", ["<b>my divorce</b>", "Anna told me about her abortion", "some_new-code"]
)
def test_a_reason_the_report_has_no_words_for_is_never_echoed(value):
    """Hole: any payload value under `reason_code`, `path` or `cover` without words was
    echoed into the member's report. Now it is said as a recorded reason, its text never
    shown."""
    [look] = report_looks(
        [{"action": "inspection.request.transitioned", "payload": {"reason_code": value}}]
    )
    assert look["why"] == WHY_UNWORDED
    assert value.split()[0].strip("<b>") not in look["why"]


@pytest.mark.parametrize(
    "target", ["https://evil.example/", "//evil.example/", "/\\evil.example/", "javascript:x"]
)
def test_the_off_the_record_return_is_never_another_site(target):
    """Held: `next` on the off-the-record switch goes only to this site."""
    client = signed_in(consenting_member())
    response = client.post("/profile/memory/off-the-record/", {"active": "on", "next": target})
    assert response.status_code == 302
    assert response.url == "/profile/memory/controls/"
