"""The context bundle: STM + LTM recall + episodic events, each tier through the read gate
for the calling client's capabilities; the 30-second cache, its key and its
invalidation; the count-only `hierarchy.bundle.resolved` audit on every resolve."""

import json
import uuid
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone

from hierarchy.bundle import get_context_bundle
from hierarchy.bundle_cache import bundle_generation, bundle_generation_bump
from hierarchy.stm import (
    stm_consent_cascade,
    stm_expire_due,
    stm_purge_member,
    stm_read,
    stm_reader,
    stm_refresh,
)
from iris_site.audit.events import Actor
from iris_site.errors import NotPermitted
from iris_site.models import AuditEvent
from memory.access.capabilities import capabilities_for
from memory.forgetting.dsar import memory_hold_place, memory_hold_release
from memory.forgetting.erasure import memory_erasure_residue
from memory.forgetting.services import memory_clear_request, memory_purge_entries, memory_tombstone
from memory.models import MemoryEntry, RecallRecord, ServiceClientCapabilities
from memory.pauses import memory_pause, memory_resume
from memory.selectors import principal_capabilities
from memory.services import memory_edit, memory_off_the_record_set
from tests.consent.factories import record
from tests.hierarchy.stm_factories import events, member_with, write
from tests.iris_site.factories import ServiceClientFactory
from tests.memory.factories import memory_settings, remember
from tests.trust.test_concurrency import race

pytestmark = pytest.mark.django_db

PAYLOAD_KEYS = {
    "scope_id_digest",
    "query_provided",
    "include_episodic",
    "cache_hit",
    "transition",
    "stm_count",
    "ltm_count",
    "episodic_count",
    "stm_withheld",
    "ltm_withheld",
}


@pytest.fixture(autouse=True)
def _clear_cache():
    cache.clear()
    yield
    cache.clear()


def bundle(member, *, consumer="assistant", client=None, **kwargs):
    """A bundle as an authenticated service client of `consumer` asks for it."""
    client = client or ServiceClientFactory(consumer=consumer)
    return get_context_bundle(
        member=member,
        scope_id=kwargs.pop("scope_id", "s-1"),
        actor=Actor.of(client),
        capabilities=principal_capabilities(client),
        **kwargs,
    )


def ids(result) -> tuple[list[str], list[str]]:
    return [r["id"] for r in result["stm"]], [e["id"] for e in result["ltm"]["entries"]]


def test_a_bundle_blends_working_memory_recall_and_the_events_about_them():
    # given
    member = member_with()
    entry = remember(member, subject="walks", body="I walk every morning").entry
    row = write(member, content="wants a route for tomorrow", related_entry_ids=[entry.pk])
    write(member, scope_id="other-scope", content="unrelated")
    # when
    result = bundle(member, query="morning walk")
    # then
    assert ids(result) == ([str(row.pk)], [str(entry.pk)])
    assert result["stm"][0]["content"] == "wants a route for tomorrow"
    assert result["stm_withheld"] == {}
    assert 0 < result["ltm"]["entries"][0]["freshness"] <= 1
    actions = {e["action"] for e in result["episodic"]}
    assert {"hierarchy.stm.written", "memory.entry.created"} <= actions
    assert result["cached"] is False


def test_a_bundle_entry_says_when_it_was_true_apart_from_when_iris_learned_it():
    member = member_with()
    remember(member, subject="home", body="I've lived in Lisbon since 2019")
    remember(member, subject="walks", body="I walk every morning")
    entries = {e["body"]: e for e in bundle(member, query="Lisbon morning")["ltm"]["entries"]}
    lisbon, walks = entries["I've lived in Lisbon since 2019"], entries["I walk every morning"]
    assert (
        lisbon["valid_from"].startswith("2019-01-01") and lisbon["valid_from_precision"] == "year"
    )
    assert (lisbon["valid_to"], lisbon["valid_to_precision"]) == (None, "")
    assert lisbon["learned_at"] is not None
    assert (walks["valid_from"], walks["valid_from_precision"]) == (None, "")


def _cached_texts() -> str:
    """Every value the tests' cache (LocMemCache) holds, as text."""
    store = cache._cache
    return " ".join(raw.decode("utf-8", errors="replace") for raw in store.values())


def test_forgetting_deletes_the_bundles_cached_before_it_not_only_unreachable():
    """Found by review: an erasure moved the member's bundle generation on, so no cached
    bundle holding the forgotten text was served again, but the text stayed in the cache
    until it expired (Redis in production), and the residue check said 0 without looking.
    The erasure now deletes the member's cached bundles, and the check counts those left."""
    member = member_with()
    entry_text = "I walk by the zqxcanal every morning"
    entry = remember(member, subject="walks", body=entry_text).entry
    assert bundle(member, query="zqxcanal walk")["ltm"]["entries"]
    assert "zqxcanal" in _cached_texts()
    memory_tombstone(entry=entry, actor=Actor.of(member))
    assert "zqxcanal" not in _cached_texts()
    residue = memory_erasure_residue(
        member_id=member.pk, entry_ids=[entry.pk], texts=[entry_text], purge=False
    )
    assert residue == {}
    after = bundle(member, query="zqxcanal walk")  # cached anew, holding nothing forgotten
    assert after["ltm"]["entries"] == [] and "zqxcanal" not in _cached_texts()


def test_a_repeat_within_30_seconds_is_served_from_the_cache_and_still_audited():
    # given
    member = member_with()
    remember(member, subject="walks", body="I walk every morning")
    write(member, content="wants a route for tomorrow")
    # when
    first = bundle(member, query="walk")
    second = bundle(member, query="walk")
    # then
    assert first["cached"] is False and second["cached"] is True
    assert second["stm"] == first["stm"]
    assert len(events("memory.recall.resolved")) == 1  # recall ran once
    resolved = events("hierarchy.bundle.resolved")
    assert [e.payload["cache_hit"] for e in resolved] == [False, True]
    for event in resolved:
        assert event.payload["stm_count"] == 1
        assert event.payload["ltm_count"] == 1
        assert event.payload["query_provided"] is True
        assert event.payload["stm_withheld"] == {} and event.payload["ltm_withheld"] == {}
        text = json.dumps(event.payload)
        assert "walk" not in text and "route" not in text
        assert set(event.payload) == PAYLOAD_KEYS


def test_the_cache_is_keyed_on_scope_member_query_context_and_the_clients_capabilities():
    member, other = member_with(), member_with()
    bundle(member, query="walk")
    assert bundle(member, query="coffee")["cached"] is False
    assert bundle(member, query="walk", scope_id="s-2")["cached"] is False
    assert bundle(other, query="walk")["cached"] is False
    assert bundle(member, query="walk", context="health")["cached"] is False
    assert bundle(member, query="walk", surface="shell")["cached"] is False
    # another assistant client has the same capabilities: the same answer
    assert bundle(member, query="walk")["cached"] is True
    # an operator's narrowing of one client changes what it may see: its own key
    narrowed = ServiceClientFactory(consumer="assistant")
    ServiceClientCapabilities.objects.create(
        service_client=narrowed, contexts=["general"], reason="briefings only"
    )
    assert bundle(member, query="walk", client=narrowed)["cached"] is False


def test_a_write_to_the_member_invalidates_their_bundles():
    # given: no commit hooks run (the generation moves in the writer's transaction)
    member = member_with()
    bundle(member, query="walk")
    # when
    write(member, content="a new thought")
    fresh = bundle(member, query="walk")
    # then
    assert fresh["cached"] is False
    assert len(fresh["stm"]) == 1
    remember(member, subject="coffee")
    assert bundle(member, query="walk")["cached"] is False


def _hold(member, entry) -> uuid.UUID:
    request_id = uuid.uuid4()
    memory_hold_place(
        member_id=member.pk,
        entry_ids=[str(entry.pk)],
        request_id=request_id,
        release_after=timezone.now() + timedelta(days=7),
        actor=Actor.system("test"),
    )
    return request_id


@pytest.mark.parametrize("change", ["pause", "forget", "hold"])
def test_a_paused_forgotten_or_held_entry_is_never_served_from_an_older_bundle(change):
    # given
    member = member_with()
    entry = remember(member, subject="walks", body="I walk every morning").entry
    assert ids(bundle(member, query="walk"))[1] == [str(entry.pk)]
    # when (no commit hook runs)
    if change == "pause":
        memory_pause(entry=entry, actor=Actor.of(member))
    elif change == "forget":
        memory_tombstone(entry=entry, actor=Actor.of(member))
    else:
        _hold(member, entry)
    after = bundle(member, query="walk")
    # then
    assert after["cached"] is False
    assert after["ltm"]["entries"] == []


# What each change needs done before the bundle is cached.
_PREPARED = {
    "resume": lambda member, entry: memory_pause(entry=entry, actor=Actor.of(member)),
    "release": lambda member, entry: _hold(member, entry),
}


def _change(name: str, member, entry, prepared, row):
    """One kind of write that changes what a member's bundle returns."""
    me = Actor.of(member)
    expiry = timezone.now() + timedelta(days=1)
    match name:
        case "remember":
            remember(member, subject="tea", body="I drink green tea")
        case "edit":
            memory_edit(entry=entry, actor=me, body="I walk every evening")
        case "pause":
            memory_pause(entry=entry, actor=me)
        case "resume":
            memory_resume(entry=prepared, actor=me)
        case "forget":
            memory_tombstone(entry=entry, actor=me)
        case "hold":
            _hold(member, entry)
        case "release":
            memory_hold_release(member_id=member.pk, request_id=prepared, actor=me)
        case "purge":
            memory_purge_entries(member_id=member.pk, entry_ids=[entry.pk], reason="full-clear")
        case "stm-write":
            write(member, content="another thought")
        case "stm-refresh":
            stm_refresh(row=row, actor=Actor.system("test"))
        case "stm-expire":  # the ordinary row is deleted, the sensitive one anonymised
            stm_expire_due(now=expiry)
        case "stm-anonymise":  # the category's consent ended: only the sensitive row
            stm_consent_cascade(member_id=member.pk, consent_type="category:mental_health")
        case "stm-purge":
            stm_purge_member(member_id=member.pk)
        case "consent":
            record(member, "category:mental_health", kind="withdrawal")
        case "full-clear":
            memory_clear_request(member=member, actor=me)
        case "off-the-record":
            memory_off_the_record_set(member=member, active=True, actor=me)


CHANGES = [
    "remember",
    "edit",
    "pause",
    "resume",
    "forget",
    "hold",
    "release",
    "purge",
    "stm-write",
    "stm-refresh",
    "stm-expire",
    "stm-anonymise",
    "stm-purge",
    "consent",
    "full-clear",
    "off-the-record",
]


@pytest.mark.parametrize("change", CHANGES)
def test_every_change_a_bundle_could_show_moves_the_generation_in_its_transaction(change):
    # given: a cached bundle over an entry, an ordinary row and a sensitive one
    member = member_with("category:mental_health")
    entry = remember(member, subject="walks", body="I walk every morning").entry
    row = write(member, content="wants a route for tomorrow")
    write(member, category="mental_health", content="anxious before exams")
    prepared = _PREPARED.get(change, lambda *_: None)(member, entry)
    bundle(member, query="walk")
    assert bundle(member, query="walk")["cached"] is True
    before = bundle_generation(member.pk)
    # when: the change commits (no commit hook runs: nothing else may end the bundle)
    _change(change, member, entry, prepared, row)
    # then
    assert bundle_generation(member.pk) > before
    assert bundle(member, query="walk")["cached"] is False


def test_reads_leave_the_generation_and_the_cache_alone():
    member = member_with()
    remember(member, subject="walks", body="I walk every morning")
    write(member, content="wants a route for tomorrow")
    before = bundle_generation(member.pk)
    bundle(member, query="walk")
    stm_read(
        member_id=member.pk,
        scope_id="s-1",
        reader=stm_reader(
            member_id=member.pk,
            capabilities=capabilities_for("assistant"),
            client_id=None,
            context="general",
        ),
        actor=Actor.system("test"),
    )
    assert bundle(member, query="walk")["cached"] is True
    assert bundle_generation(member.pk) == before
    # the reads did append their events: those are not changes
    assert all(events(a) for a in ("hierarchy.bundle.resolved", "memory.recall.resolved"))
    assert events("hierarchy.stm.read")


def test_a_change_rolled_back_leaves_the_generation_and_the_cached_bundle():
    member = member_with()
    entry = remember(member, subject="walks", body="I walk every morning").entry
    bundle(member, query="walk")
    before = bundle_generation(member.pk)
    with pytest.raises(RuntimeError), transaction.atomic():
        memory_pause(entry=entry, actor=Actor.of(member))
        raise RuntimeError("the writer fails after its event")
    assert bundle_generation(member.pk) == before
    cached = bundle(member, query="walk")
    assert cached["cached"] is True and ids(cached)[1] == [str(entry.pk)]


@pytest.mark.django_db(transaction=True)
def test_racing_writers_lose_no_bump_and_never_deadlock():
    """Entry pauses (entry lock first), short-term writes (member lock first) and holds
    (neither) of one member at once, each bumping in its own transaction: every audited
    change is one step of the generation, whatever the interleaving."""
    member = member_with()
    entries = [remember(member, subject=f"s-{n}", body=f"fact {n}").entry for n in range(6)]
    start = AuditEvent.objects.order_by("-sequence").values_list("sequence", flat=True)[0]
    before = bundle_generation(member.pk)
    calls = [
        *(lambda e=e: memory_pause(entry=e, actor=Actor.of(member)) for e in entries[:3]),
        *(lambda n=n: write(member, content=f"thought {n}") for n in range(3)),
        *(lambda e=e: _hold(member, e) for e in entries[3:]),
    ]
    results, errors = race(calls)
    assert errors == [] and len(results) == len(calls)
    changes = AuditEvent.objects.filter(target_member_id=member.pk, sequence__gt=start)
    assert bundle_generation(member.pk) - before == changes.count() >= len(calls)


@pytest.mark.django_db(transaction=True)
def test_the_first_bumps_of_a_member_racing_to_create_the_row_are_all_counted():
    member_id = uuid.uuid4()

    def bump() -> None:
        with transaction.atomic():
            bundle_generation_bump(member_id)

    _, errors = race([bump] * 6)
    assert errors == []
    assert bundle_generation(member_id) == 6


@pytest.mark.parametrize(
    ("change", "reason", "stm_withheld"),
    [
        # a full clear erases working memory at once: there is no row left to withhold
        ("full-clear", "full-clear-pending", {}),
        ("off-the-record", "off-the-record", {"off-the-record": 1}),
    ],
)
def test_a_full_clear_or_off_the_record_withholds_everything_at_once(change, reason, stm_withheld):
    # given: no commit hooks run; the bundle's key alone must change
    member = member_with()
    remember(member, subject="walks", body="I walk every morning")
    write(member, content="wants a route for tomorrow")
    assert bundle(member, query="walk")["stm"]
    # when
    if change == "full-clear":
        memory_clear_request(member=member, actor=Actor.of(member))
    else:
        memory_off_the_record_set(member=member, active=True, actor=Actor.of(member))
    after = bundle(member, query="walk")
    # then
    assert after["cached"] is False
    assert ids(after) == ([], [])
    assert after["stm_withheld"] == stm_withheld
    assert after["ltm"]["audit_envelope"]["suppression_counts"] == {reason: 1}
    assert after["episodic"] == []
    assert events("hierarchy.bundle.resolved")[-1].payload["stm_withheld"] == stm_withheld


def test_a_consent_grant_is_answered_by_a_new_bundle_too():
    member = member_with()
    record(member, "category:mental_health")
    row = write(member, category="mental_health", content="anxious before exams")
    record(member, "category:mental_health", kind="withdrawal")  # commit hooks do not run
    before = bundle(member, context="health")
    assert before["stm"] == []
    assert before["stm_withheld"] == {"sensitive-category-without-consent": 1}
    # when the member grants it again
    record(member, "category:mental_health")
    after = bundle(member, context="health")
    # then
    assert after["cached"] is False
    assert ids(after)[0] == [str(row.pk)]


def test_a_sensitive_row_surfaces_only_in_a_context_the_client_may_claim():
    # given
    member = member_with("category:mental_health")
    row = write(member, category="mental_health", content="anxious before exams")
    ordinary = write(member, content="likes tea")
    # when / then: the assistant in a health context sees it
    health = bundle(member, context="health")
    assert ids(health)[0] == [str(row.pk), str(ordinary.pk)]
    assert health["stm"][0]["content"] == "anxious before exams"
    # in general it is withheld and counted, and no event about it is listed
    general = bundle(member, context="general")
    assert ids(general)[0] == [str(ordinary.pk)]
    assert general["stm_withheld"] == {"sensitive-category-outside-relevant-context": 1}
    listed = {e["payload"].get("stm_id") for e in general["episodic"]}
    assert str(row.pk) not in listed and str(ordinary.pk) in listed
    assert "anxious" not in json.dumps(general)
    # a briefing surface may not even claim the health context
    with pytest.raises(NotPermitted) as refused:
        bundle(member, consumer="veritas", context="health")
    assert refused.value.code == "context-not-allowed"


def test_episodic_events_are_only_about_what_was_returned():
    # given: a row pointing at an entry the gate withholds (paused)
    member = member_with()
    hidden = remember(member, subject="walks", body="I walk every morning").entry
    memory_pause(entry=hidden, actor=Actor.of(member))
    write(member, content="wants a route", related_entry_ids=[hidden.pk])
    # when
    result = bundle(member, query="walk")
    # then: the entry, and the row derived from it, are withheld and counted
    assert ids(result) == ([], [])
    assert result["ltm"]["audit_envelope"]["suppression_counts"] == {"user-pause": 1}
    assert result["stm_withheld"] == {"user-pause": 1}
    assert all(e["payload"].get("entry_id") != str(hidden.pk) for e in result["episodic"])


def test_episodic_events_can_be_left_out():
    member = member_with()
    write(member)
    assert bundle(member, include_episodic=False)["episodic"] == []


def test_a_client_naming_no_surface_gets_its_own_budget_or_the_shells():
    member = member_with()
    bundle(member, consumer="assistant")
    bundle(member, consumer="veritas")
    assert [r.surface for r in RecallRecord.objects.order_by("created_at", "id")] == [
        "assistant",
        "shell",
    ]


@pytest.mark.parametrize(
    ("consumer", "options", "code"),
    [
        ("assistant", {"surface": "admin"}, "surface-not-allowed"),
        ("veritas", {"surface": "assistant"}, "surface-not-allowed"),
        ("shell", {"surface": "notebook"}, "surface-not-allowed"),
        ("veritas", {"context": "health"}, "context-not-allowed"),
        ("shell", {"context": "health"}, "context-not-allowed"),
    ],
)
def test_a_surface_or_context_outside_the_capabilities_is_refused(consumer, options, code):
    member = member_with()
    remember(member, subject="walks", body="I walk every morning")
    with pytest.raises(NotPermitted) as refused:
        bundle(member, consumer=consumer, **options)
    assert refused.value.code == code
    assert not events("hierarchy.bundle.resolved")
    assert not RecallRecord.objects.exists()
    assert MemoryEntry.objects.get().reference_count == 0


def test_a_scope_kind_the_client_may_not_read_is_refused():
    member = member_with()
    client = ServiceClientFactory(consumer="assistant")
    ServiceClientCapabilities.objects.create(
        service_client=client, read_kinds=["profile"], reason="no session memory"
    )
    with pytest.raises(NotPermitted) as refused:
        bundle(member, client=client)  # a user session's bundle reads session memory
    assert refused.value.code == "consumer-not-allowed-for-scope"
    assert bundle(member, client=client, scope_kind="research_task")["stm"] == []


def test_auto_forget_withholds_an_entry_and_its_copy_and_caps_the_cache_at_its_time(
    monkeypatch,
):
    """An entry whose auto-forget time comes between two sweeps is withheld from that
    instant, with the short-term row copied from it, and a bundle holding it is cached no
    longer than until then."""
    import hierarchy.bundle as bundle_module

    cache.clear()
    member = member_with()
    now = timezone.now()
    due = now + timedelta(seconds=10)
    entry = remember(
        member, subject="walks", body="I walk every morning", now=due - timedelta(days=91)
    ).entry
    row = write(member, content="wants a route", related_entry_ids=[entry.pk])
    memory_settings(member, auto_forget_months={"profile": 3})
    kept: list = []

    def spy(key, value, *, member_id, now, expires_at):
        kept.append(expires_at)

    monkeypatch.setattr(bundle_module, "bundle_cache_set", spy)
    client = ServiceClientFactory(consumer="assistant")
    before = bundle(member, client=client, query="morning walk", now=now)
    assert ids(before) == ([str(row.pk)], [str(entry.pk)])
    assert kept == [due]  # sooner than the row's ttl and the cache's 30 s

    after = bundle(member, client=client, query="morning walk", now=due + timedelta(seconds=1))
    assert ids(after) == ([], [])
    assert after["ltm"]["audit_envelope"]["suppression_counts"] == {"member-auto-forget": 1}
    assert after["stm_withheld"] == {"member-auto-forget": 1}
    assert MemoryEntry.objects.get(pk=entry.pk).lifecycle == "active"  # the sweep's to erase
