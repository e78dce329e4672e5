"""No path returns what the read gate withholds: a property test over the real services.

One small world of member M's content of every kind (long-term entries in every scope
kind, sensitive and not, one about a person in a sensitive interaction; short-term rows
of four scopes; continuation tokens, sensitive and not, written by two clients on two
devices), and per example, inside a savepoint rolled back after it:

- a principal: the service client of a random consumer, narrowed at random by a platform
  operator (`service_client_capabilities_set`);
- the member's state: consents withdrawn at random (base, category, multi-actor,
  sensitive data, cross-device), entries paused (for good, a timed pause that has ended by
  the reading time, one still running), held for a pending deletion, a full clear
  pending, off the record in one session or everywhere;
- a request: surface, context and scope mostly among those the principal may claim, and
  sometimes not (those must be refused with 403 `NotPermitted`, before anything is read).

Each example reads through recall (`recall_request_build` + `recall_run`), the context
bundle, the short-term list (`stm_read`) and the continuation tokens (the recent list and
a resume of each token), and every item any of them returns is rebuilt from its database
row with the adapters the paths use (`member_candidates(...).as_item()`, `stm_item`,
`token_item`) and put to `memory.access.gate.decide` with a reader and member state built here
from the principal, the request and the ledger: it must be visible.
"""

import dataclasses
from collections import Counter
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from continuity.models import ContinuationToken
from continuity.policy import RECENT_MAX, readable_surfaces
from continuity.selectors import (
    continuation_resume,
    continuation_token_recent,
    continuity_cross_device_grant_id,
    token_item,
)
from hierarchy.bundle import get_context_bundle, own_surface
from hierarchy.enums import StmScopeKind
from hierarchy.models import ShortTermMemory
from hierarchy.stm import stm_item, stm_read, stm_reader
from hierarchy.stm_policy import default_target_scope
from iris_site.audit.events import Actor
from iris_site.enums import Consumer
from iris_site.errors import NotFound, NotPermitted
from iris_site.models import ServiceClient
from memory.access.capabilities import ADMIN_SURFACE, capabilities_for
from memory.access.gate import Reader as GateReader
from memory.access.gate import ReaderKind, ScopeKey, decide
from memory.enums import RecallContext, ScopeKind
from memory.forgetting.dsar import memory_hold_place
from memory.forgetting.services import memory_clear_request
from memory.pauses import memory_pause
from memory.recall.service import recall_request_build, recall_run
from memory.recall.store import member_candidates
from memory.selectors import member_read_state, principal_capabilities
from memory.services import memory_off_the_record_set, service_client_capabilities_set
from tests.consent.factories import record
from tests.continuity.factories import write as token_write
from tests.hierarchy.stm_factories import write as stm_write
from tests.iris_site.factories import MemberFactory, ServiceClientFactory, TenantFactory
from tests.memory.factories import remember

pytestmark = pytest.mark.django_db

CATEGORIES = ("medical", "mental_health", "financial", "safety", "pose_alignment")
CONSENTS = (
    "data_processing",
    "data_storage",
    "sensitive_data",
    "multi-actor-sensitive",
    "cross_device",
    *(f"category:{c}" for c in CATEGORIES),
)
SESSION = {"session_id": "s-1"}
SCENE = {**SESSION, "scene_id": "sc-1", "room_id": "r-1"}
POSE = {**SESSION, "scene_id": "sc-1", "pose_id": "p-1", "avatar_id": "av-1"}
SURFACES = (*Consumer.values, ADMIN_SURFACE)
STM_SCOPES = (
    ("s-1", StmScopeKind.USER_SESSION),
    ("s-1", None),
    ("s-2", StmScopeKind.USER_SESSION),
    ("run-1", StmScopeKind.AGENT_RUN),
    ("r-1", StmScopeKind.RESEARCH_TASK),
    ("r-1", None),
)
DEVICES = (None, "d-1", "d-2")
TOKEN_READERS = ("tara", "tara-2", "shell")
PAUSES = ("for-good", "ended", "running")
# The reading time, after every timed pause's end ("ended") and before the others'.
LATER = timedelta(minutes=2)


def world():
    """M's content of every kind; a stranger's entry that no read of M may ever return."""
    tenant = TenantFactory()
    member = MemberFactory(tenants=[tenant])
    for consent in CONSENTS:
        record(member, consent)
    entries = {}

    def keep(name, **fields):
        entries[name] = remember(member, **fields).entry

    # Plain memory, which most readers may see, beside the sensitive kinds.
    for n, body in enumerate(("likes the canal walk", "reads before bed", "a fact on tea")):
        keep(f"profile-{n}", subject=f"plain-{n}", body=body)
    keep(
        "mention",
        category="relationship",
        body="walks with Ben on Sundays",
        multi_actor={"actor_name": "Ben", "relationship_note": "an old friend"},
    )
    for category in ("medical", "mental_health", "financial", "safety"):
        keep(f"profile-{category}", category=category, body=f"a {category} fact")
    keep("session", scope={"kind": "session", **SESSION}, body="walks at seven")
    keep("session-2", scope={"kind": "session", **SESSION}, subject="tea", body="green tea fact")
    keep("session-medical", scope={"kind": "session", **SESSION}, category="medical", body="pill")
    keep("other-session", scope={"kind": "session", "session_id": "s-2"}, body="tea at four")
    keep("scene", scope={"kind": "scene", **SCENE}, body="the lake scene")
    keep("pose", scope={"kind": "pose", **POSE}, category="pose_alignment", body="left knee")
    keep("notebook", scope={"kind": "notebook", "notebook_id": "n-1"}, body="chapter notes")
    keep("crisis", scope={"kind": "crisis"}, category="safety", body="the safety plan")
    keep("tenant", scope={"kind": "tenant", "tenant_id": str(tenant.pk)}, body="the rota")
    keep(
        "sensitive-mention",
        category="relationship",
        body="argued with Anna",
        multi_actor={"actor_name": "Anna", "sensitive_interaction": True},
    )
    stranger = MemberFactory(tenants=[tenant])
    for consent in ("data_processing", "data_storage"):
        record(stranger, consent)
    remember(stranger, body="the stranger's own fact")

    for scope_id, kind, category in (
        ("s-1", StmScopeKind.USER_SESSION, "preference"),
        ("s-1", StmScopeKind.USER_SESSION, "goal"),
        ("s-1", StmScopeKind.USER_SESSION, "medical"),
        ("s-1", StmScopeKind.USER_SESSION, "mental_health"),
        ("s-1", StmScopeKind.AGENT_RUN, "preference"),  # a name clash with the session
        ("s-2", StmScopeKind.USER_SESSION, "preference"),
        ("run-1", StmScopeKind.AGENT_RUN, "financial"),
        ("r-1", StmScopeKind.RESEARCH_TASK, "preference"),
    ):
        stm_write(member, scope_id=scope_id, scope_kind=kind, category=category)

    clients = {consumer: ServiceClientFactory(consumer=consumer) for consumer in Consumer.values}
    clients["tara-2"] = ServiceClientFactory(consumer="tara")

    def token(n, writer, device, sensitive):
        token_write(
            member,
            client=clients[writer],
            device_id=device,
            scope_key=f"session:s-{n}",
            surface_context={"surface": "tara", "session_id": f"s-{n}", "tenant_id": None},
            sensitive_categories=["mental_health"] if sensitive else [],
            cross_device_consent_id=continuity_cross_device_grant_id(member_id=member.pk)
            if sensitive
            else None,
        )

    token(1, "tara", "d-1", sensitive=False)
    token(2, "tara", "d-1", sensitive=True)
    token(3, "tara-2", "d-2", sensitive=True)
    # The grant those two name is no longer the one in force: they stay on their device.
    record(member, "cross_device", kind="withdrawal")
    record(member, "cross_device")
    token(4, "tara", "d-2", sensitive=True)
    return member, tenant, entries, clients


# --- examples ----------------------------------------------------------------------------


def _subset(values):
    return st.sets(st.sampled_from(sorted(values)))


def _few(strategy):
    """Nothing, half of the time."""
    return st.one_of(st.none(), strategy)


def _mostly(allowed, every):
    """A value the principal may claim (five times in six), or any value at all."""
    anything = st.sampled_from(sorted(every))
    if not allowed:
        return anything
    claimable = st.sampled_from(sorted(allowed))
    return st.integers(0, 5).flatmap(lambda n: anything if n == 0 else claimable)


@st.composite
def examples(draw, clients, entries):
    # Half of the time a reader of the world's (Tara) tokens, the only ones that read them.
    name = draw(st.sampled_from(TOKEN_READERS) | st.sampled_from(sorted(clients)))
    table = capabilities_for(clients[name].consumer)
    narrowing = None
    if draw(st.booleans()):
        narrowing = {
            dimension: draw(st.none() | _subset(getattr(table, dimension)))
            for dimension in ("surfaces", "contexts", "read_kinds", "write_kinds")
        }
    allowed = table.narrowed(**narrowing) if narrowing else table
    kind = draw(_mostly(allowed.read_kinds, ScopeKind.values))
    return {
        "client": name,
        "narrowing": narrowing,
        # Each of these withholds a lot: most examples change a little, so that most reads
        # still return something to check.
        "withdrawn": draw(_few(st.sets(st.sampled_from(CONSENTS), max_size=2))),
        "paused": draw(
            _few(
                st.dictionaries(
                    st.sampled_from(sorted(entries)), st.sampled_from(PAUSES), max_size=4
                )
            )
        ),
        "held": draw(_few(st.sets(st.sampled_from(sorted(entries)), max_size=3))),
        "clear_pending": draw(st.integers(0, 9)) == 0,
        "off_the_record": draw(_few(st.sampled_from(["s-1", "s-2", ""]))),
        "surface": draw(_mostly(allowed.surfaces, SURFACES)),
        "bundle_surface": draw(st.none() | _mostly(allowed.surfaces, SURFACES)),
        "context": draw(_mostly(allowed.contexts, RecallContext.values)),
        "kind": kind,
        "notebook_tenant": draw(st.booleans()),
        "crisis_frame": draw(st.integers(0, 4)) == 0,
        "safety_critical": draw(st.booleans()),
        "narrow_categories": draw(st.none() | _subset(CATEGORIES)),
        "query": draw(st.sampled_from(["", "", "walks", "fact", "Anna knee"])),
        "stm_scope": draw(st.sampled_from(STM_SCOPES)),
        "device": draw(st.sampled_from(DEVICES)),
    }


def apply_state(case, member, entries, clients) -> ServiceClient:
    """The example's member state and narrowing, through the services; the principal as
    a request would load it (fresh, so nothing is cached on it)."""
    client = clients[case["client"]]
    if case["narrowing"] is not None:
        service_client_capabilities_set(
            service_client=client,
            actor=Actor.system("property-test"),
            reason="property test narrowing",
            **case["narrowing"],
        )
    for consent in sorted(case["withdrawn"] or ()):
        record(member, consent, kind="withdrawal")
    soon = timezone.now() + LATER / 2
    for name, pause in sorted((case["paused"] or {}).items()):
        ends = {"for-good": None, "ended": soon, "running": soon + 2 * LATER}[pause]
        memory_pause(entry=entries[name], actor=Actor.of(member), ends_at=ends)
    if case["held"]:
        memory_hold_place(
            member_id=member.pk,
            entry_ids=[str(entries[name].pk) for name in sorted(case["held"])],
            request_id="00000000-0000-4000-8000-000000000001",
            release_after=timezone.now() + timedelta(days=7),
            actor=Actor.system("property-test"),
        )
    if case["off_the_record"] is not None:
        memory_off_the_record_set(
            member=member,
            active=True,
            actor=Actor.of(member),
            session_id=case["off_the_record"],
        )
    if case["clear_pending"]:  # last: while it waits, the member's switches are put aside
        memory_clear_request(member=member, actor=Actor.of(member))
    return ServiceClient.objects.get(pk=client.pk)


def recall_scope(case, tenant) -> dict:
    return {
        ScopeKind.PROFILE: {},
        ScopeKind.SESSION: SESSION,
        ScopeKind.SCENE: SCENE,
        ScopeKind.POSE: POSE,
        ScopeKind.NOTEBOOK: {"notebook_id": "n-1"},
        ScopeKind.CRISIS: {},
        ScopeKind.OPERATOR_COPILOT: {"operator_id": "00000000-0000-4000-8000-00000000000f"},
        ScopeKind.TENANT: {"tenant_id": str(tenant.pk)},
    }[case["kind"]] | {"kind": case["kind"]}


def service_reader(member, client, caps, context, **more) -> GateReader:
    return GateReader(
        kind=ReaderKind.SERVICE,
        member_id=str(member.pk),
        capabilities=caps,
        client_id=str(client.pk),
        context=context,
        **more,
    )


def assert_entries_visible(entries, *, member, reader, state, now, path):
    """Each returned entry, rebuilt from its row, is one the gate lets this reader see."""
    rows = {c.entry_id: c for c in member_candidates(member_id=member.pk)}
    for entry_id in entries:
        assert entry_id in rows, f"{path} returned {entry_id}, not one of M's live entries"
        reason = decide(rows[entry_id].as_item(), reader, state, now)
        assert reason is None, f"{path} returned entry {entry_id} the gate withholds: {reason}"


def check_recall(case, *, member, tenant, client, caps, now):
    scope = recall_scope(case, tenant)
    tenant_id = tenant.pk if case["kind"] == ScopeKind.TENANT or case["notebook_tenant"] else None
    refused = (
        case["surface"] == ADMIN_SURFACE
        or case["surface"] not in caps.surfaces
        or case["context"] not in caps.contexts
        or case["kind"] not in caps.read_kinds
    )
    build = dict(
        member_id=member.pk,
        capabilities=caps,
        surface=case["surface"],
        scope=scope,
        query=case["query"],
        context=case["context"],
        crisis_frame=case["crisis_frame"],
        safety_critical_context=case["safety_critical"],
        narrow_categories=case["narrow_categories"],
        tenant_id=tenant_id,
        now=now,
    )
    if refused:
        with pytest.raises(NotPermitted):
            recall_request_build(**build)
        return {}
    request = recall_request_build(**build)
    result = recall_run(request=request, actor=Actor.of(client), now=now)
    reader = service_reader(
        member,
        client,
        caps,
        case["context"],
        scope=ScopeKey(user_id=str(member.pk), **scope),
        tenant_id=str(tenant_id) if tenant_id else None,
        crisis_frame=case["crisis_frame"],
        safety_critical_context=case["safety_critical"],
    )
    state = member_read_state(
        member_id=member.pk,
        session_id=scope.get("session_id", ""),
        narrow_categories=case["narrow_categories"],
        now=now,
    )
    assert_entries_visible(
        [e.entry_id for e in result.entries],
        member=member,
        reader=reader,
        state=state,
        now=now,
        path="recall",
    )
    return {"recall": len(result.entries)}


def assert_stm_visible(row_ids, *, member, client, caps, context, now, path):
    for row_id in row_ids:
        row = ShortTermMemory.objects.get(pk=row_id)
        assert row.member_id == member.pk, f"{path} returned another member's row"
        # The off-the-record that applies is the session the row lives in.
        session = row.scope_id if row.scope_kind == StmScopeKind.USER_SESSION else ""
        state = member_read_state(member_id=member.pk, session_id=session, now=now)
        reason = decide(stm_item(row), service_reader(member, client, caps, context), state, now)
        assert reason is None, (
            f"{path} returned short-term row {row_id} the gate withholds: {reason}"
        )


def check_bundle(case, *, member, client, caps, now):
    scope_id, scope_kind = case["stm_scope"]
    surface = case["bundle_surface"] or own_surface(caps)
    ltm_scope = default_target_scope(scope_kind or StmScopeKind.USER_SESSION, scope_id)
    call = dict(
        member=member,
        scope_id=scope_id,
        actor=Actor.of(client),
        capabilities=caps,
        query=case["query"],
        scope_kind=scope_kind,
        surface=case["bundle_surface"],
        context=case["context"],
        now=now,
    )
    if (
        surface == ADMIN_SURFACE
        or surface not in caps.surfaces
        or ltm_scope["kind"] not in caps.read_kinds
        or case["context"] not in caps.contexts
    ):
        with pytest.raises(NotPermitted):
            get_context_bundle(**call)
        return {}
    bundle = get_context_bundle(**call)
    assert_stm_visible(
        [row["id"] for row in bundle["stm"]],
        member=member,
        client=client,
        caps=caps,
        context=case["context"],
        now=now,
        path="bundle.stm",
    )
    reader = service_reader(
        member, client, caps, case["context"], scope=ScopeKey(user_id=str(member.pk), **ltm_scope)
    )
    state = member_read_state(
        member_id=member.pk, session_id=ltm_scope.get("session_id", ""), now=now
    )
    assert_entries_visible(
        [entry["id"] for entry in bundle["ltm"]["entries"]],
        member=member,
        reader=reader,
        state=state,
        now=now,
        path="bundle.ltm",
    )
    return {"bundle.stm": len(bundle["stm"]), "bundle.ltm": len(bundle["ltm"]["entries"])}


def check_stm_list(case, *, member, client, caps, now):
    scope_id, scope_kind = case["stm_scope"]
    if case["context"] not in caps.contexts:
        with pytest.raises(NotPermitted):
            stm_reader(
                member_id=member.pk, capabilities=caps, client_id=client.pk, context=case["context"]
            )
        return {}
    reader = stm_reader(
        member_id=member.pk, capabilities=caps, client_id=client.pk, context=case["context"]
    )
    read = stm_read(
        member_id=member.pk,
        scope_id=scope_id,
        scope_kind=scope_kind,
        reader=reader,
        actor=Actor.of(client),
        now=now,
    )
    assert_stm_visible(
        [view.row.pk for view in read.views],
        member=member,
        client=client,
        caps=caps,
        context=case["context"],
        now=now,
        path="stm list",
    )
    return {"stm list": len(read.views)}


def check_tokens(case, *, member, client, caps, now):
    surfaces = readable_surfaces(client.consumer)
    if not surfaces:
        return {}  # not a continuity surface: the API refuses it before any read
    # The reader the API builds for a client reading on a device (`continuity.apis`).
    reader = service_reader(member, client, caps, RecallContext.GENERAL, device_id=case["device"])
    given = dict(member_id=member.pk, reader=reader, surfaces=surfaces, now=now)
    returned = [token.pk for token in continuation_token_recent(limit=RECENT_MAX, **given)]
    for token_id in ContinuationToken.objects.filter(member=member).values_list("pk", flat=True):
        try:
            returned.append(continuation_resume(token_id=token_id, **given).id)
        except NotFound:
            continue
    grant = continuity_cross_device_grant_id(member_id=member.pk, now=now)
    state = dataclasses.replace(
        member_read_state(member_id=member.pk, now=now), cross_device_grant_id=grant
    )
    for token_id in returned:
        token = ContinuationToken.objects.get(pk=token_id)
        assert token.member_id == member.pk, "tokens: another member's token"
        reason = decide(token_item(token), reader, state, now)
        assert reason is None, f"tokens returned {token_id} the gate withholds: {reason}"
    return {"tokens": len(returned)}


def test_no_path_returns_an_item_the_gate_withholds():
    member, tenant, entries, clients = world()
    returned: Counter[str] = Counter()

    @settings(
        max_examples=30,
        deadline=None,
        database=None,
        # Deterministic examples: the vacuity check below must not fail on an unlucky draw
        # (a random run once drew no example whose recall returned anything).
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(case=examples(clients, entries))
    def holds(case):
        note(repr(case))
        cache.clear()  # the bundle cache outlives the rolled-back example otherwise
        with transaction.atomic():
            client = apply_state(case, member, entries, clients)
            caps = principal_capabilities(client)
            now = timezone.now() + LATER
            context = dict(member=member, client=client, caps=caps, now=now)
            returned.update(check_recall(case, tenant=tenant, **context))
            returned.update(check_bundle(case, **context))
            returned.update(check_stm_list(case, **context))
            returned.update(check_tokens(case, **context))
            transaction.set_rollback(True)

    holds()
    # Not vacuous: every path returned items to check (most examples leave much visible).
    paths = ("recall", "bundle.stm", "bundle.ltm", "stm list", "tokens")
    assert all(returned[path] for path in paths), returned
