"""Issue 42, attacked from outside (a reviewer's file): each test is a door the builders
left open, tried over real HTTP where a caller would, and failing before its fix."""

import json
import urllib.error
import urllib.request
from datetime import timedelta

import pytest
from django.contrib.auth.models import Permission
from django.utils import timezone

from consent.models import ConsentEvent
from datarights.models import DataRightsRequest
from iris_site.audit.sealing import MARKER
from iris_site.enums import OperatorRole
from iris_site.models import User
from iris_site.services import token_issue
from memory.enums import Lifecycle
from memory.models import MemoryEntry
from memory.sweeps.retention import retention_sweep
from tests.conftest import http_request
from tests.datarights.factories import process, submit
from tests.iris_site.factories import PASSWORD, OperatorFactory, TenantFactory
from tests.memory.factories import consenting_member, member_turn, remember
from tests.stepup import step_up_token
from tests.trust.test_step_up import Browser

pytestmark = pytest.mark.django_db(transaction=True)

ME = "/api/v1/me/"


def _live(entry) -> bool:
    row = MemoryEntry.objects.filter(pk=entry.pk).first()
    return row is not None and row.lifecycle == Lifecycle.ACTIVE


def test_a_stolen_token_cannot_forget_a_category_by_withdrawing_its_consent(live_server):
    # given: a member with mental-health memory, and their ordinary (stolen) API token
    member = consenting_member("category:mental_health")
    entry = remember(member, category="mental_health", subject="mood", body="Low all week").entry
    _, stolen = token_issue(owner=member)

    # when: the thief withdraws the category's consent over the consent API
    answer = http_request(
        f"{live_server.url}{ME}consents/events/",
        method="POST",
        token=stolen,
        body={"consent_type": "category:mental_health", "kind": "withdrawal"},
    )

    # then: refused as every other forgetting door is, and nothing is forgotten
    assert answer.status == 403, answer.body
    assert answer.body["error"]["code"] == "reauthentication-required"
    assert _live(entry)

    # and: the member, stepped up, withdraws (and so forgets) as before
    answer = http_request(
        f"{live_server.url}{ME}consents/events/",
        method="POST",
        token=step_up_token(member),
        body={"consent_type": "category:mental_health", "kind": "withdrawal"},
    )
    assert answer.status == 201, answer.body
    assert not _live(entry)


def test_a_stolen_page_session_cannot_forget_sensitive_interactions_by_withdrawing(
    live_server,
):
    # given: a member's sensitive interaction with someone, and a browser signed in as them
    member = consenting_member("multi-actor-sensitive")
    talk = remember(
        member,
        category="relationship",
        subject="talk",
        body="A hard conversation",
        multi_actor={"actor_name": "Anna", "sensitive_interaction": True},
    ).entry
    stolen = Browser(live_server.url)
    stolen.sign_in(member.email)

    # when: the session withdraws multi-actor-sensitive on the page (which forgets them)
    path = "/profile/memory/consents/multi-actor-sensitive/withdraw/"
    stolen.open(path)
    status, page, _ = stolen.open(path, {"confirm": "1"})

    # then: the confirm step answers, and the interaction is not forgotten
    assert status == 403, page[:500]
    assert 'name="step_up-password"' in page
    assert _live(talk)

    # and: with the password on that step, it goes
    status, _, _ = stolen.open(path, {"confirm": "1", "step_up-password": PASSWORD})
    assert status == 200
    assert not _live(talk)


def _session_json(browser: Browser, path: str, body: dict) -> tuple[int, dict]:
    """The pages' own session-authenticated API call (cookie and CSRF token)."""
    csrf = next(c.value for c in browser.jar if c.name == "csrftoken")
    request = urllib.request.Request(  # noqa: S310
        browser.base + path,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "X-CSRFToken": csrf},
        method="POST",
    )
    try:
        with browser.opener.open(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def test_a_stolen_page_session_cannot_erase_everything_through_the_data_rights_api(
    live_server,
):
    # given: a member's memory, and a browser signed in as them (no password since)
    member = consenting_member()
    entry = remember(member, body="I take my coffee black").entry
    stolen = Browser(live_server.url)
    stolen.sign_in(member.email)
    stolen.open("/profile/memory/data/")

    # when: the session asks the data-rights API (as the pages' scripts may) to erase all
    status, body = _session_json(
        stolen,
        f"{ME}data-rights/",
        {"kind": "delete", "payload": {"mode": "hard", "scopes": ["profile"]}},
    )

    # then: the page's delete form asks for the password, so the API asks for a step-up:
    # a signed-in session alone no longer verifies an erasure at once
    assert status == 403, body
    assert body["error"]["code"] == "reauthentication-required"
    assert _live(entry)
    assert not DataRightsRequest.objects.filter(member=member).exists()


# --- the admin: hand-made lookups on a table's own fields ------------------------------


@pytest.mark.parametrize(
    "path",
    [
        # the member's words, probed through the body or the term statistics
        "/admin/memory/memoryentry/?body__icontains=panic",
        "/admin/memory/memoryentry/?term_stats__icontains=panic",
        # the special category, through the consent the entry was stored under
        "/admin/memory/memoryentry/?consent__icontains=mental_health",
        # a turn's text
        "/admin/memory/conversationturn/?text__icontains=panic",
        # the audit chain's payloads (a category sealed or not, a member's events unrecorded)
        "/admin/iris_site/auditevent/?payload__category__startswith=sealed",
        # a data-rights request's payload (which categories a member had erased)
        "/admin/datarights/datarightsrequest/?payload__categories__icontains=mental",
    ],
)
def test_a_platform_admin_cannot_probe_content_or_categories_with_hand_made_lookups(
    live_server, path
):
    # given: a member who confided something in a special category, in a conversation
    member = consenting_member("category:mental_health")
    entry = remember(
        member, category="mental_health", subject="panic", body="I have panic attacks"
    ).entry
    member_turn(member, text="I have panic attacks")
    admin = OperatorFactory(role=OperatorRole.ADMIN)
    admin.user_permissions.set(Permission.objects.filter(codename__startswith="view_"))
    browser = Browser(live_server.url)
    browser.open("/admin/login/")
    status, _, _ = browser.open(
        "/admin/login/", {"username": admin.email, "password": PASSWORD, "next": "/admin/"}
    )
    assert status == 200
    status, page, _ = browser.open("/admin/memory/memoryentry/")
    assert status == 200 and str(entry.pk) in page  # signed in, the table lists the entry

    # when: the admin filters a table by a hand-made lookup on one of its own fields
    status, page, _ = browser.open(path)

    # then: the lookup is refused (Django's disallowed-lookup answer), not answered
    assert status == 400, (status, page[:300])


# --- the data-rights queue: a finished erasure still named the special category ----------


def test_a_finished_erasure_does_not_tell_operators_which_special_category_it_was(live_server):
    # given: a member who had their mental-health memory erased; the request is done
    member = consenting_member("category:mental_health")
    remember(member, category="mental_health", subject="mood", body="Low all week")
    request = process(
        submit(member, "delete", {"mode": "hard", "categories": ["mental_health"]}, session=True)
    )
    assert request.status == "completed"
    legal = OperatorFactory(role=OperatorRole.LEGAL)
    _, token = token_issue(owner=legal)

    # when: legal lists the queue and opens the request, outside any open task of hers
    queue = http_request(f"{live_server.url}/api/v1/operator/data-rights/", token=token)
    item = http_request(f"{live_server.url}/api/v1/operator/data-rights/{request.pk}/", token=token)

    # then: the category shows as the neutral marker, as an audit listing shows it
    assert queue.status == 200 and item.status == 200, (queue.body, item.body)
    [listed] = [r for r in queue.body["results"] if r["id"] == str(request.pk)]
    for payload in (listed["payload"], item.body["payload"]):
        assert payload["categories"] == [MARKER], payload
    assert "mental_health" not in json.dumps(queue.body) + json.dumps(item.body)


# --- the hierarchy operator API: the exact category by entry id ---------------------------


def test_the_operator_lookup_by_entry_id_names_a_special_category_only_as_the_marker(
    live_server,
):
    # given: an entry of a special category, whose id the admin's memory list shows
    member = consenting_member("category:mental_health")
    entry = remember(member, category="mental_health", subject="mood", body="Low all week").entry
    plain = remember(member, body="I take my coffee black").entry
    _, token = token_issue(owner=OperatorFactory(role=OperatorRole.TRUST_AND_SAFETY))

    # when: t&s looks each entry up by its id, outside any inspection
    def lookup(entry_id):
        answer = http_request(
            f"{live_server.url}/api/v1/operator/memory-hierarchy/ltm/{entry_id}/",
            method="POST",
            token=token,
            body={"justification": "ticket 4411: checking a report"},
        )
        assert answer.status == 200, answer.body
        [row] = answer.body["entries"]
        return row

    # then: the special category shows as the admin shows it; an ordinary one as it is
    assert lookup(entry.pk)["category"] == MARKER
    assert lookup(plain.pk)["category"] == "preference"


# --- the console's retention reviews: the category's name beside the member's email -------


def test_a_retention_review_names_a_special_category_only_as_the_marker(live_server):
    # given: a tenant's memory of a member in a special category, due for review
    tenant = TenantFactory()
    member = consenting_member("category:mental_health", tenants=[tenant])
    remember(
        member,
        category="mental_health",
        subject="stress",
        body="Burnout after the reorganisation",
        scope={"kind": "tenant", "tenant_id": str(tenant.pk)},
    )
    retention_sweep(now=timezone.now() + timedelta(days=400))
    reviewer = OperatorFactory(role=OperatorRole.TRUST_AND_SAFETY)
    browser = Browser(live_server.url)
    browser.sign_in(reviewer.email)

    # when: the reviewer opens the console's reviews
    status, page, _ = browser.open("/console/reviews/")

    # then: the member's review is there, its category as the marker, never its name
    assert status == 200 and member.email in page
    assert MARKER in page
    assert "Mental health" not in page and "mental_health" not in page


# --- auto-forget: shortening retention forgets what is already older, at once ------------


def _old_memory(member):
    return remember(
        member, body="I take my coffee black", now=timezone.now() - timedelta(days=200)
    ).entry


SHORTEST = {"stop_using": False, "auto_forget_months": {"profile": 3}, "paused_consumers": []}


def test_a_stolen_token_cannot_forget_by_shortening_auto_forget(live_server):
    # given: a member's profile memory from half a year ago, and their ordinary token
    member = consenting_member()
    entry = _old_memory(member)
    _, stolen = token_issue(owner=member)

    # when: the thief sets "forget automatically after 3 months" on profile memory
    answer = http_request(
        f"{live_server.url}{ME}memory-settings/", method="PUT", token=stolen, body=SHORTEST
    )

    # then: refused as any forgetting is, and nothing is forgotten
    assert answer.status == 403, answer.body
    assert answer.body["error"]["code"] == "reauthentication-required"
    assert _live(entry)

    # and: stepped up, the member's choice takes effect at once (what is older goes)
    answer = http_request(
        f"{live_server.url}{ME}memory-settings/",
        method="PUT",
        token=step_up_token(member),
        body=SHORTEST,
    )
    assert answer.status == 200, answer.body
    assert not _live(entry)


def test_a_stolen_page_session_cannot_forget_by_shortening_auto_forget(live_server):
    member = consenting_member()
    entry = _old_memory(member)
    stolen = Browser(live_server.url)
    stolen.sign_in(member.email)
    stolen.open("/profile/memory/")
    form = {"part": "auto-forget", "auto_forget_profile": "3"}

    status, page, _ = stolen.open("/profile/memory/settings/", form)

    assert status == 403, page[:300]
    assert 'name="step_up-password"' in page
    assert _live(entry)
    status, _, _ = stolen.open("/profile/memory/settings/", {**form, "step_up-password": PASSWORD})
    assert status == 200
    assert not _live(entry)


def test_the_admins_consent_event_page_never_names_the_special_category(live_server):
    # given: a member's grant of a special category, in the ledger
    member = consenting_member("category:mental_health")
    event = ConsentEvent.objects.get(member=member, consent_type="category:mental_health")
    admin = OperatorFactory(role=OperatorRole.ADMIN)
    admin.user_permissions.set(Permission.objects.filter(codename__startswith="view_"))
    browser = Browser(live_server.url)
    browser.sign_in(admin.email)

    # when: the admin opens the event (its title and breadcrumb name the row)
    status, page, _ = browser.open(f"/admin/consent/consentevent/{event.pk}/change/")

    # then: the consent type shows only as the marker, there as in the list
    assert status == 200
    assert MARKER in page
    assert "mental_health" not in page, page[page.find("mental_health") - 200 :][:400]


# --- deleting an operator account in the admin: unaudited, and it erases the links --------


def test_a_platform_admin_cannot_delete_an_operator_account_around_the_service(live_server):
    # given: a platform admin with every permission, and an operator account another made
    admin_user = OperatorFactory(role=OperatorRole.ADMIN)
    admin_user.user_permissions.set(Permission.objects.all())
    target = OperatorFactory(role=OperatorRole.LEGAL)
    browser = Browser(live_server.url)
    browser.sign_in(admin_user.email)

    # when: the admin deletes it, one page and the list's bulk action
    one, _, _ = browser.open(f"/admin/iris_site/user/{target.pk}/delete/", {"post": "yes"})
    browser.open("/admin/iris_site/user/")
    browser.open(
        "/admin/iris_site/user/",
        [("action", "delete_selected"), ("_selected_action", str(target.pk)), ("post", "yes")],
    )

    # then: the account is still there (deactivating is the audited way)
    assert one == 403
    assert User.objects.filter(pk=target.pk).exists()
