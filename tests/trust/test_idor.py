"""IDOR: nobody but member A reads or changes A's objects, whatever ids they send.

Intruders: member B (A's tenant), an admin operator bound to another tenant, operators
without access to A's inspection, and surfaces naming a member in the path and another
in the body. Every attempt is a 404 (or the contract's 403/400), its body carries none
of A's content, and A's data is exactly as it was: entries, revision counts, consent
ledger, data-rights requests and trails, tokens, short-term rows, notices, inspections.
"""

from __future__ import annotations

import pytest
from django.core.cache import cache

from consent.models import ConsentEvent
from continuity.models import ContinuationToken
from datarights.models import DataRightsRequest, DataRightsTrailEntry
from hierarchy.models import ShortTermMemory
from inspection.models import InspectionEvent, InspectionNotice, InspectionRequest
from memory.models import MemoryEntry, MemoryNotice, MemoryRevision
from tests.conftest import bearer_client
from tests.consent.factories import record
from tests.continuity.factories import token_body
from tests.iris_site.factories import OperatorFactory
from tests.memory.factories import consenting_member
from tests.trust.conftest import (
    MEMBER_B,
    OTHER_TENANT_OPERATOR,
    SECRETS,
    World,
)

pytestmark = pytest.mark.django_db

ME = "/api/v1/me"
OPS = "/api/v1/operator"


@pytest.fixture(autouse=True)
def _fresh_cache():
    cache.clear()
    yield
    cache.clear()


def a_state(world: World) -> dict:
    """Everything of A's an intruder could change, as comparable values."""
    a = world.a.pk
    return {
        "entries": sorted(
            MemoryEntry.objects.filter(member_id=a).values_list(
                "id", "lifecycle", "revision_id", "revision_count", "scope_key", "body", "subject"
            )
        ),
        "revisions": MemoryRevision.objects.filter(member_id=a).count(),
        "consents": list(
            ConsentEvent.objects.filter(member_id=a).order_by("sequence").values_list("id", "hash")
        ),
        "dsars": sorted(
            DataRightsRequest.objects.filter(member_id=a).values_list(
                "id", "status", "due_at", "extended_deadline_at"
            )
        ),
        "trail": DataRightsTrailEntry.objects.filter(member_id=a).count(),
        "tokens": sorted(
            ContinuationToken.objects.filter(member_id=a).values_list("id", "token_id", "revision")
        ),
        "stm": sorted(
            ShortTermMemory.objects.filter(member_id=a).values_list(
                "id", "ttl_expires", "consolidated_to", "content"
            )
        ),
        "memory_notices": sorted(
            MemoryNotice.objects.filter(member_id=a).values_list("id", "state")
        ),
        "inspections": sorted(
            InspectionRequest.objects.filter(member_id=a).values_list("id", "state")
        ),
        "inspection_events": InspectionEvent.objects.filter(member_id=a).count(),
        "inspection_notices": sorted(
            InspectionNotice.objects.filter(member_id=a).values_list("id", "state")
        ),
    }


def assert_refused(response, status: int, world: World, before: dict, *, code=None) -> None:
    text = response.content.decode(errors="replace")
    assert response.status_code == status, text[:300]
    if response.get("Content-Type", "").startswith("application/json"):
        error = response.json()["error"]
        assert set(error) == {"code", "message", "fields"}
        if code is not None:
            assert error["code"] == code, error
    leaked = [s for s in (*SECRETS, world.a.email) if s in text]
    assert not leaked, f"A's content in the refusal: {leaked}"
    assert a_state(world) == before, "A's data changed"


# --- Member B against A's objects (read, update, delete) ------------------------------------

MEMORY_ATTEMPTS = [
    ("get", "memories/{entry}/", None),
    ("patch", "memories/{entry}/", {"body": "B was here"}),
    ("post", "memories/{entry}/preview/", {"body": "B was here"}),
    ("get", "memories/{entry}/revisions/", None),
    ("post", "memories/{entry}/forget/", None),
    ("post", "memories/{entry}/pause/", {}),
    ("post", "memories/{paused_entry}/resume/", None),
    ("post", "memories/{inferred_entry}/confirm/", None),
    ("post", "memories/{session_entry}/scope/", {"scope": {"kind": "profile"}}),
    ("get", "consents/events/{consent_event}/", None),
    ("get", "data-rights/{dsar_completed}/", None),
    ("post", "data-rights/{dsar_submitted}/verify/", {"resend": True}),
    ("post", "data-rights/{dsar_submitted}/verify/", {"code": "123456"}),
    ("post", "data-rights/{dsar_submitted}/cancel/", None),
    ("post", "data-rights/{dsar_completed}/appeal/", {"reason": "B contests"}),
    ("get", "data-rights/{dsar_completed}/download/", None),
    ("get", "continuation-tokens/{continuation}/resume/", None),
    ("post", "notices/{notice}/answer/", {"accept": True}),
]


def _fill(world: World, template: str) -> str:
    names = [part.split("}")[0] for part in template.split("{")[1:]]
    return template.format(**{name: world[name].pk for name in names})


@pytest.mark.parametrize(
    ("method", "template", "body"),
    MEMORY_ATTEMPTS,
    ids=[f"{m.upper()} {t}" for m, t, _ in MEMORY_ATTEMPTS],
)
def test_member_b_gets_404_for_every_object_of_a(trust_world, method, template, body):
    before = a_state(trust_world)
    client = trust_world.api_client(MEMBER_B)
    url = f"{ME}/{_fill(trust_world, template)}"
    response = getattr(client, method)(url, body, format="json")
    assert_refused(response, 404, trust_world, before, code="not_found")


PAGE_ATTEMPTS = [
    ("get", "/profile/memory/{entry}/", None),
    ("get", "/profile/memory/{entry}/history/", None),
    ("get", "/profile/memory/{entry}/edit/", None),
    ("post", "/profile/memory/{entry}/edit/", {"body": "B was here", "category": "preference"}),
    ("post", "/profile/memory/{entry}/pause/", {}),
    ("post", "/profile/memory/{paused_entry}/resume/", {}),
    ("post", "/profile/memory/{entry}/forget/", {}),
    ("post", "/profile/memory/{session_entry}/scope/", {"kind": "profile"}),
    ("post", "/profile/memory/notices/{notice}/answer/", {"answer": "update"}),
    ("post", "/profile/memory/data/{dsar_submitted}/verify/", {}),
    ("post", "/profile/memory/data/{dsar_submitted}/cancel/", {}),
    ("post", "/profile/memory/data/{dsar_completed}/appeal/", {"reason": "B contests"}),
    ("get", "/profile/memory/data/{dsar_completed}/download/", None),
]


@pytest.mark.parametrize(
    ("method", "template", "body"),
    PAGE_ATTEMPTS,
    ids=[f"{m.upper()} {t}" for m, t, _ in PAGE_ATTEMPTS],
)
def test_member_b_gets_404_on_the_pages_of_a_objects(trust_world, method, template, body):
    before = a_state(trust_world)
    client = trust_world.page_client(MEMBER_B)
    response = getattr(client, method)(_fill(trust_world, template), body or {})
    assert_refused(response, 404, trust_world, before)


def test_member_b_lists_show_nothing_of_a(trust_world):
    client = trust_world.api_client(MEMBER_B)
    a_ids = {str(pk) for pk in MemoryEntry.objects.filter(member=trust_world.a).values_list("pk")}
    a_ids |= {
        str(trust_world[name].pk)
        for name in (
            "consent_event",
            "continuation",
            "dsar_submitted",
            "dsar_completed",
            "notice",
            "inspection_notice",
        )
    }
    for path in (
        "memories/",
        "consents/",
        "consents/events/",
        "continuation-tokens/",
        "data-rights/",
        "notices/",
        "inspection-notices/",
        "recalls/",
        "memories/clear/",
    ):
        response = client.get(f"{ME}/{path}")
        assert response.status_code == 200, path
        text = response.content.decode()
        assert not [i for i in a_ids if i in text], f"{path} lists A's objects"
        assert not [s for s in SECRETS if s in text], f"{path} shows A's content"


def test_member_b_bulk_actions_never_reach_a(trust_world):
    """Forget-category, forget-actor (with A's handle), full clear, off the record: all
    act on B's own namespace only."""
    before = a_state(trust_world)
    client = trust_world.api_client(MEMBER_B)
    handle = trust_world["actor_entry"].actor_handle
    forgot = client.post(f"{ME}/actors/{handle}/forget/")
    assert forgot.status_code == 200 and forgot.json()["tombstoned_count"] == 0
    category = client.post(
        f"{ME}/memories/forget-category/", {"category": "preference"}, format="json"
    )
    assert category.status_code == 200
    assert not set(category.json()["tombstoned_ids"]) & {e[0] for e in before["entries"]}
    assert client.put(f"{ME}/off-the-record/", {"active": True}, format="json").status_code == 200
    assert client.post(f"{ME}/memories/clear/").status_code == 201
    assert a_state(trust_world) == before
    # A can still remember: B's off-the-record switch is B's alone.
    own = trust_world.api_client("member:a").post(
        f"{ME}/memories/",
        {"scope": {"kind": "profile"}, "category": "preference", "body": "still mine"},
        format="json",
    )
    assert own.status_code == 201


# --- Create-side IDOR: another member's id in the body or the path ------------------------------


def test_member_b_cannot_write_into_a_scope(trust_world):
    before = a_state(trust_world)
    client = trust_world.api_client(MEMBER_B)
    a_id = str(trust_world.a.pk)
    created = client.post(
        f"{ME}/memories/",
        {"scope": {"kind": "profile", "user_id": a_id}, "category": "preference", "body": "x"},
        format="json",
    )
    assert_refused(created, 400, trust_world, before)
    own = MemoryEntry.objects.filter(member=trust_world.b).first()
    moved = client.post(
        f"{ME}/memories/{own.pk}/scope/",
        {"scope": {"kind": "notebook", "notebook_id": "n-1", "user_id": a_id}},
        format="json",
    )
    assert_refused(moved, 400, trust_world, before)
    assert MemoryEntry.objects.get(pk=own.pk).member_id == trust_world.b.pk


@pytest.mark.parametrize("consumer", ["assistant", "tara"])
def test_a_surface_cannot_write_for_one_member_into_another_members_scope(trust_world, consumer):
    """Path says B, body names A: refused, and nothing is written for either."""
    before = a_state(trust_world)
    b_entries = MemoryEntry.objects.filter(member=trust_world.b).count()
    client = trust_world.api_client(f"service:{consumer}")
    b_path = f"/api/v1/members/{trust_world.b.pk}"
    response = client.post(
        f"{b_path}/memories/",
        {
            "scope": {"kind": "profile", "user_id": str(trust_world.a.pk)},
            "category": "preference",
            "body": "planted",
            "origin": "model-inferred",
        },
        format="json",
    )
    assert_refused(response, 400, trust_world, before)
    assert MemoryEntry.objects.filter(member=trust_world.b).count() == b_entries


def test_a_surface_cannot_write_a_token_naming_another_member(trust_world):
    before = a_state(trust_world)
    client = trust_world.api_client("service:tara")
    response = client.put(
        f"/api/v1/members/{trust_world.b.pk}/continuation-tokens/",
        token_body(trust_world.a.pk, scope_key="session:s-7"),
        format="json",
    )
    assert_refused(response, 400, trust_world, before)
    assert not ContinuationToken.objects.filter(member=trust_world.b).exists()


def test_a_token_cannot_borrow_another_members_cross_device_consent(trust_world):
    """B's token carrying sensitive categories under A's `cross_device` grant: 400."""
    grant = record(trust_world.a, "cross_device").event
    before = a_state(trust_world)
    client = trust_world.api_client("service:tara")
    response = client.put(
        f"/api/v1/members/{trust_world.b.pk}/continuation-tokens/",
        token_body(
            trust_world.b.pk,
            scope_key="session:s-8",
            sensitive_categories=["medical"],
            cross_device_consent_id=str(grant.pk),
        ),
        format="json",
    )
    assert_refused(response, 400, trust_world, before, code="cross-device-consent-not-active")
    assert not ContinuationToken.objects.filter(member=trust_world.b).exists()


def test_a_surface_cannot_reach_a_row_through_another_members_path(trust_world):
    """A's short-term row, addressed under B's member id: 404, the row untouched; B's
    scope read does not return it; A's token under B's id is not there either."""
    before = a_state(trust_world)
    client = trust_world.api_client("service:assistant")
    b_path = f"/api/v1/members/{trust_world.b.pk}"
    refreshed = client.post(
        f"{b_path}/short-term/{trust_world['stm'].pk}/refresh/", {}, format="json"
    )
    assert_refused(refreshed, 404, trust_world, before, code="not_found")
    listed = client.get(f"{b_path}/short-term/", {"scope_id": "s-1"})
    assert listed.status_code == 200 and str(trust_world["stm"].pk) not in listed.content.decode()
    tara = trust_world.api_client("service:tara")
    resumed = tara.get(f"{b_path}/continuation-tokens/{trust_world['continuation'].pk}/resume/")
    assert_refused(resumed, 404, trust_world, before)
    bundle = client.post(f"{b_path}/context-bundle/", {"scope_id": "s-1"}, format="json")
    assert bundle.status_code == 200
    assert not [s for s in SECRETS if s in bundle.content.decode()]


@pytest.mark.parametrize("target", ["operator", "unknown"])
def test_surfaces_get_404_for_anyone_who_is_not_a_member(trust_world, target):
    import uuid

    member_id = trust_world.users["operator:admin"].pk if target == "operator" else uuid.uuid4()
    client = trust_world.api_client("service:assistant")
    base = f"/api/v1/members/{member_id}"
    body = {"scope": {"kind": "profile"}, "category": "preference", "body": "x"}
    for method, path, data in (
        ("post", "memories/", {**body, "origin": "model-inferred"}),
        ("post", "recall/", {"surface": "assistant", "scope": {"kind": "profile"}}),
        ("get", "short-term/?scope_id=s-1", None),
        ("post", "context-bundle/", {"scope_id": "s-1"}),
        ("post", "sessions/s-1/turns/", {"speaker": "member", "text": "hi"}),
    ):
        response = getattr(client, method)(f"{base}/{path}", data, format="json")
        assert response.status_code == 404, (path, response.content[:200])


def test_recall_for_a_tenant_the_member_is_not_in_is_404(trust_world):
    client = trust_world.api_client("service:metis")
    response = client.post(
        f"/api/v1/members/{trust_world.a.pk}/recall/",
        {
            "surface": "metis",
            "scope": {"kind": "tenant", "tenant_id": str(trust_world.other_tenant.pk)},
            "query": "coffee",
        },
        format="json",
    )
    before = a_state(trust_world)
    assert_refused(response, 404, trust_world, before)


# --- Operators against A's inspections and data-rights requests ---------------------------------

INSPECTION_READS = ["", "snapshot/", "replay/"]


@pytest.mark.parametrize("suffix", INSPECTION_READS)
@pytest.mark.parametrize("intruder", [OTHER_TENANT_OPERATOR, "operator:t&s", "operator:legal"])
def test_operators_without_the_request_get_404_for_a_inspection(trust_world, intruder, suffix):
    before = a_state(trust_world)
    client = trust_world.api_client(intruder)
    response = client.get(f"{OPS}/inspections/{trust_world['inspection'].pk}/{suffix}")
    assert_refused(response, 404, trust_world, before, code="not_found")


@pytest.mark.parametrize("to", ["closed", "denied", "granted"])
@pytest.mark.parametrize("intruder", [OTHER_TENANT_OPERATOR, "operator:t&s", "operator:legal"])
def test_operators_without_the_request_cannot_move_it(trust_world, intruder, to):
    before = a_state(trust_world)
    client = trust_world.api_client(intruder)
    response = client.post(
        f"{OPS}/inspections/{trust_world['inspection'].pk}/transition/", {"to": to}, format="json"
    )
    assert_refused(response, 404, trust_world, before, code="not_found")


@pytest.mark.parametrize("suffix", ["snapshot/", "replay/"])
def test_admin_oversight_sees_the_request_but_never_its_snapshot(trust_world, suffix):
    before = a_state(trust_world)
    events = InspectionEvent.objects.count()
    client = trust_world.api_client("operator:admin")
    response = client.get(f"{OPS}/inspections/{trust_world['inspection'].pk}/{suffix}")
    assert_refused(response, 403, trust_world, before)
    assert InspectionEvent.objects.count() == events


def test_a_tenant_bound_operator_cannot_open_a_request_about_a(trust_world):
    before = a_state(trust_world)
    count = InspectionRequest.objects.count()
    client = trust_world.api_client(OTHER_TENANT_OPERATOR)
    response = client.post(
        f"{OPS}/inspections/",
        {
            "target_user_id": str(trust_world.a.pk),
            "scope": {"kind": "profile"},
            "justification": "Checking a complaint.",
        },
        format="json",
    )
    assert_refused(response, 404, trust_world, before, code="not_found")
    assert InspectionRequest.objects.count() == count


@pytest.mark.parametrize("bound", [False, True], ids=["platform", "tenant-bound"])
def test_a_request_about_one_member_never_pins_another_members_memory(trust_world, bound):
    """Opened about someone the operator may inspect (B; or C in a tenant operator's own
    tenant) with a scope naming A: the gate denies it (`scope-out-of-bounds`) and nothing
    of A's is ever pinned or shown."""
    before = a_state(trust_world)
    a_id = str(trust_world.a.pk)
    if bound:
        tenant = trust_world.other_tenant
        target = consenting_member(tenants=[tenant])
        operator = OperatorFactory(role="support", tenant=tenant)
        scope = {"kind": "tenant", "tenant_id": str(tenant.pk), "user_id": a_id}
    else:
        target, operator = trust_world.b, OperatorFactory(role="support")
        scope = {"kind": "profile", "user_id": a_id}
    client = bearer_client(operator)
    opened = client.post(
        f"{OPS}/inspections/",
        {"target_user_id": str(target.pk), "scope": scope, "justification": "A complaint."},
        format="json",
    )
    assert opened.status_code == 201, opened.content[:300]
    url = f"{OPS}/inspections/{opened.json()['id']}/transition/"
    assert client.post(url, {"to": "routine-review"}, format="json").status_code == 200
    decided = client.post(url, {"to": "granted"}, format="json")
    assert decided.status_code == 200
    assert (decided.json()["state"], decided.json()["reason_code"]) == (
        "denied",
        "scope-out-of-bounds",
    )
    assert decided.json()["seen_entry_ids"] == []
    snapshot = client.get(f"{OPS}/inspections/{opened.json()['id']}/snapshot/")
    assert snapshot.status_code == 409
    assert not [s for s in SECRETS if s in snapshot.content.decode()]
    assert a_state(trust_world) == before


@pytest.mark.parametrize(
    ("method", "suffix", "body"),
    [
        ("get", "", None),
        ("post", "transition/", {"to": "verified", "verification_method": "operator-signoff"}),
        ("post", "transition/", {"to": "cancelled"}),
        ("post", "extend/", {"until": "2027-03-01T00:00:00Z", "reason": "Backlog."}),
    ],
)
def test_a_tenant_bound_operator_gets_404_for_a_data_rights_request(
    trust_world, method, suffix, body
):
    before = a_state(trust_world)
    client = trust_world.api_client(OTHER_TENANT_OPERATOR)
    url = f"{OPS}/data-rights/{trust_world['dsar_submitted'].pk}/{suffix}"
    response = getattr(client, method)(url, body, format="json")
    assert_refused(response, 404, trust_world, before, code="not_found")


def test_tenant_bound_operator_lists_never_show_a(trust_world):
    client = trust_world.api_client(OTHER_TENANT_OPERATOR)
    a_id = str(trust_world.a.pk)
    justification = "Checking a complaint about reminders."
    for method, path, query in (
        ("get", "data-rights/", {"member_id": a_id}),
        ("get", "inspections/", {"member_id": a_id}),
        ("get", "audit-events/", {"target_member_id": a_id}),
        ("post", "memory-hierarchy/stm/s-1/", {"justification": justification, "member_id": a_id}),
        (
            "post",
            f"memory-hierarchy/ltm/{trust_world['entry'].pk}/",
            {"justification": justification, "member_id": a_id},
        ),
        ("get", "memory-hierarchy/replay/s-1/", {"member_id": a_id}),
    ):
        if method == "get":
            response = client.get(f"{OPS}/{path}", query)
        else:
            response = client.post(f"{OPS}/{path}", query, format="json")
        assert response.status_code == 200, (path, response.content[:200])
        text = response.content.decode()
        assert a_id not in text, f"{path} shows A"
        assert not [s for s in SECRETS if s in text], path


def test_a_surface_cannot_relate_another_members_entry_to_a_row(trust_world):
    """A short-term row for B naming A's entry: refused like a made-up id (400)."""
    before = a_state(trust_world)
    client = trust_world.api_client("service:assistant")
    response = client.post(
        f"/api/v1/members/{trust_world.b.pk}/short-term/",
        {
            "scope_kind": "user_session",
            "scope_id": "s-1",
            "category": "preference",
            "content": "planted",
            "related_entry_ids": [str(trust_world["entry"].pk)],
            "consolidate_on_critic_promote": True,
        },
        format="json",
    )
    assert_refused(response, 400, trust_world, before)
    assert not ShortTermMemory.objects.filter(member_id=trust_world.b.pk).exists()


@pytest.mark.parametrize(
    ("given", "status"),
    [
        ({"scope": {"kind": "profile", "user_id": "{b}"}}, 400),
        ({"scope": {"kind": "session", "session_id": "s-1", "user_id": "{b}"}}, 400),
        ({"entry_id": "{b_entry}"}, 409),
    ],
    ids=["profile-of-b", "session-of-b", "b-entry"],
)
def test_consolidating_a_row_never_writes_into_another_members_memory(trust_world, given, status):
    """A's row, consolidated with a target naming B: refused (the scope's `user_id` was
    silently swapped for A's and the row consolidated, 201); B's memory and A's row stay
    as they were."""
    b_entry = MemoryEntry.objects.filter(member=trust_world.b).first()
    body = {
        k: ({**v, "user_id": str(trust_world.b.pk)} if isinstance(v, dict) else str(b_entry.pk))
        for k, v in given.items()
    }
    before = a_state(trust_world)
    b_before = sorted(
        MemoryEntry.objects.filter(member=trust_world.b).values_list("id", "revision_id")
    )
    client = trust_world.api_client("service:assistant")
    response = client.post(
        f"/api/v1/members/{trust_world.a.pk}/short-term/{trust_world['stm'].pk}/consolidate/",
        body,
        format="json",
    )
    assert_refused(response, status, trust_world, before)
    after = sorted(
        MemoryEntry.objects.filter(member=trust_world.b).values_list("id", "revision_id")
    )
    assert after == b_before
