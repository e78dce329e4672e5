"""``manage.py bench_changes``: what telling the surfaces costs (issue 44).

1. A forget with 10 recipients against one with none: one synthetic member with N entries
   and a history of recall records (the records `entry_recipients` reads); each run
   gives one entry to 10 consumers (their recall records) or to none, forgets it through
   the erasure service (`entry_forget`, as a retention or member forget runs it) and
   rolls back. Alternated run by run; p50 and p95 of each, the added cost, and the
   events written per second that added cost amounts to.
2. The feed over real HTTP: E events for one consumer, read page by page (`limit=500`)
   with a service client's token from 127.0.0.1; events per second per page.

Everything is written inside a transaction that is rolled back, on a scratch database
(`require_scratch_database`). Ids and counts only are printed.
"""

from __future__ import annotations

import json
import time
import urllib.request
import uuid
from typing import Any

from django.core.management.base import OutputWrapper
from django.db import transaction
from django.utils import timezone

from iris_site.audit.events import Actor
from iris_site.enums import Consumer, UserKind
from iris_site.models import ServiceClient, Tenant, TenantMembership, User
from iris_site.services import token_issue
from memory.bench.harness import (
    SharedConnectionServer,
    percentiles,
    require_scratch_database,
    rolled_back,
    timed,
)
from memory.bench.synthetic import populate
from memory.enums import ChangeType, Lifecycle
from memory.forgetting.services import entry_forget
from memory.models import ChangeEvent, MemoryEntry, RecallRecord

RECIPIENTS = [c.value for c in Consumer][:10]
PAGE = 500


def _member(entries: int, seed: int) -> tuple[User, list[MemoryEntry]]:
    tenant = Tenant.objects.create(name="Bench changes", slug=f"bench-{uuid.uuid4().hex[:12]}")
    member = User.objects.create_user(
        email=f"bench-{uuid.uuid4().hex[:12]}@bench.invalid", password=None, kind=UserKind.MEMBER
    )
    TenantMembership.objects.create(tenant=tenant, user=member)
    populate(member, tenant, entries, now=timezone.now(), seed=seed)
    # Active entries: a forget of a tombstone tells no one (there is nothing left to drop).
    active = MemoryEntry.objects.filter(member=member, lifecycle=Lifecycle.ACTIVE)
    return member, list(active.order_by("pk"))


def _records(member: User, consumers: list[str], returned: list[list[str]]) -> None:
    now = timezone.now()
    RecallRecord.objects.bulk_create(
        RecallRecord(
            member=member,
            surface=consumer,
            consumer=consumer,
            scope_key="profile",
            context="general",
            returned_ids=ids,
            created_at=now,
        )
        for consumer, ids in zip(consumers, returned, strict=True)
    )


def forget_cost(*, entries: int, history: int, runs: int, seed: int) -> dict[str, Any]:
    member, everything = _member(entries, seed)
    # The member's history: recalls by every recipient of the other half of the entries
    # (read by each forget's `entry_recipients`, whatever the number of recipients).
    half = len(everything) // 2
    pool, others = everything[:half], everything[half:]
    _records(
        member,
        [RECIPIENTS[i % len(RECIPIENTS)] for i in range(history)],
        [[str(others[(i * 7 + j) % len(others)].pk) for j in range(5)] for i in range(history)],
    )
    actor = Actor.system("bench")
    times: dict[int, list[float]] = {0: [], 10: []}
    events: dict[int, int] = {0: 0, 10: 0}
    for run in range(runs + 2):  # the first pair warms up
        for recipients in (0, 10) if run % 2 else (10, 0):
            entry = pool[(run * 2 + recipients) % len(pool)]
            with rolled_back():
                given = RECIPIENTS[:recipients]
                _records(member, given, [[str(entry.pk)]] * len(given))
                before = ChangeEvent.objects.count()
                seconds, _ = timed(
                    lambda entry=entry: entry_forget(entry, actor=actor, now=timezone.now())
                )
                written = ChangeEvent.objects.count() - before
            if run >= 2:
                times[recipients].append(seconds)
                events[recipients] += written
    none, ten = percentiles(times[0]), percentiles(times[10])
    added = ten["p50"] - none["p50"]
    return {
        "entries": entries,
        "history_recall_records": history,
        "runs": runs,
        "forget_0_recipients_ms": none,
        "forget_10_recipients_ms": ten,
        "events_per_forget": {k: round(v / runs, 2) for k, v in events.items()},
        "added_p50_ms": round(added, 2),
        "events_per_s_of_added_cost": round(10 / (added / 1000), 0) if added > 0 else None,
        "events_per_s_whole_forget": round(10 / (ten["p50"] / 1000), 0),
    }


def feed_throughput(*, events: int, rounds: int) -> dict[str, Any]:
    member_id = uuid.uuid4()
    now = timezone.now()
    entry_ids = [[str(uuid.uuid4())] for _ in range(events)]
    ChangeEvent.objects.bulk_create(
        ChangeEvent(
            member_id=member_id,
            consumer=Consumer.ASSISTANT,
            type=ChangeType.MEMORY_FORGOTTEN,
            entry_ids=ids,
            revision_ids=[str(uuid.uuid4())],
            occurred_at=now,
        )
        for ids in entry_ids
    )
    client = ServiceClient.objects.create(
        consumer=Consumer.ASSISTANT, label=f"bench-{uuid.uuid4().hex[:12]}"
    )
    _, token = token_issue(owner=client)
    pages: list[float] = []
    total_seconds, total_read = 0.0, 0
    with SharedConnectionServer() as server:
        base = f"http://127.0.0.1:{server.port}/api/v1/events/?limit={PAGE}"
        for _ in range(rounds):
            after, read = "", 0
            while True:
                url = base + (f"&after={after}" if after else "")
                start = time.perf_counter()
                body = _get(url, token)
                seconds = time.perf_counter() - start
                if not body["events"]:
                    break
                if len(body["events"]) == PAGE:
                    pages.append(seconds)
                total_seconds += seconds
                read += len(body["events"])
                total_read += len(body["events"])
                after = body["next"]
            assert read == events, (read, events)
    page = percentiles(pages)
    return {
        "events": events,
        "page_size": PAGE,
        "full_pages_read": len(pages),
        "page_ms": page,
        "events_per_s_p50_page": round(PAGE / (page["p50"] / 1000), 0),
        "events_per_s_overall": round(total_read / total_seconds, 0),
    }


def _get(url: str, token: str) -> dict:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"})  # noqa: S310
    with urllib.request.urlopen(request, timeout=60) as response:  # noqa: S310
        return json.loads(response.read())


def bench_changes_run(options: dict, *, out: OutputWrapper) -> None:
    require_scratch_database()
    summary: dict[str, Any] = {}
    with transaction.atomic():
        try:
            started = time.perf_counter()
            summary["forget"] = forget_cost(
                entries=options["entries"],
                history=options["history"],
                runs=options["runs"],
                seed=options["seed"],
            )
            out.write(f"forget: {json.dumps(summary['forget'])}")
            summary["feed"] = feed_throughput(events=options["events"], rounds=options["rounds"])
            out.write(f"feed: {json.dumps(summary['feed'])}")
            summary["seconds"] = round(time.perf_counter() - started, 1)
        finally:
            transaction.set_rollback(True)
    summary["added_p50_ms_per_recipient"] = round(summary["forget"]["added_p50_ms"] / 10, 3)
    out.write(json.dumps(summary))


__all__ = ["bench_changes_run", "feed_throughput", "forget_cost"]
