"""``bench_recall --scale N [N ...]``: recall latency at scale.

One synthetic member with N entries (`memory.bench.synthetic`) on the configured
database (PostgreSQL for the real figures): recall latency in-process and over HTTP,
peak memory, and the production path against the straightforward reference (every
entry of the member through the pure pipeline), which must return the same ranked ids;
the index's size (`pg_total_relation_size` of its tables) and what the write path
spends keeping it current per new entry. With ``--against``, another checkout's store
timed beside this one (`memory.bench.recall._store_of`).
"""

from __future__ import annotations

import gc
import json
import random
import resource
import statistics
import tracemalloc
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.core.management.base import CommandError, OutputWrapper
from django.db import connection, transaction
from django.utils import timezone

from iris_site.audit.events import Actor
from iris_site.enums import Consumer, UserKind
from iris_site.models import ServiceClient, Tenant, TenantMembership, User
from iris_site.services import token_issue
from memory.bench.harness import (
    SharedConnectionServer,
    cleanup,
    ms,
    percentiles,
    post,
    rolled_back,
    timed,
    vacuum_analyze,
)
from memory.bench.queries import BenchQuery, bench_queries, request_builder
from memory.bench.synthetic import TEMPLATES, Synthetic, consents_grant, populate
from memory.enums import Lifecycle, MemoryCategory, Origin, ScopeKind
from memory.models import (
    MemoryContextAnchor,
    MemoryCorpusShard,
    MemoryEntry,
    MemoryEntryTerm,
    MemoryStem,
)
from memory.recall import resolve, term_stats_for
from memory.recall.service import recall_run
from memory.recall.store import (
    corpus_stats_apply,
    corpus_stats_get,
    entry_terms_index,
    member_candidates,
    recall_resolve,
    term_stats_keyed,
)

INDEX_MODELS = (MemoryEntryTerm, MemoryStem, MemoryCorpusShard, MemoryContextAnchor)


def index_bytes() -> dict[str, int] | None:
    """`pg_total_relation_size` (table, indexes, TOAST) of each index table: the postings,
    the vocabulary, the counter shards and the context anchors (PostgreSQL only; the
    bench takes what one member's writes add to them, in a database of its own)."""
    if connection.vendor != "postgresql":
        return None
    sizes = {}
    with connection.cursor() as cursor:
        for model in INDEX_MODELS:
            cursor.execute("SELECT pg_total_relation_size(%s)", [model._meta.db_table])
            sizes[model._meta.db_table] = cursor.fetchone()[0]
    return sizes


def write_index_cost(synthetic: Synthetic, count: int, *, seed: int) -> dict[str, float]:
    """What the write path spends keeping the index current for one new entry: the
    corpus counters and the postings (`corpus_stats_apply` + `entry_terms_index`, as
    `memory.services._create` calls them), for ``count`` new entries, in ms. The caller
    rolls the writes back."""
    rng = random.Random(seed)  # noqa: S311 - test data
    now = timezone.now()
    times = []
    for index in range(count):
        body = synthetic.vocabulary.fill(rng, rng.choice(TEMPLATES))
        entry = MemoryEntry(
            id=uuid.uuid4(),
            member=synthetic.member,
            scope_kind=ScopeKind.PROFILE,
            scope_key=f"profile:{synthetic.member.pk}",
            category=MemoryCategory.FACT,
            body=body,
            origin=Origin.USER_STATED,
            lifecycle=Lifecycle.ACTIVE,
            confidence=1.0,
            conflict_key=f"fact::::write-{index}",
            # As the write path stores them: stems named by the member's keyed tokens.
            term_stats=term_stats_keyed(synthetic.member.pk, [term_stats_for(body)])[0].to_json(),
            created_at=now,
            updated_at=now,
        )
        entry.save(force_insert=True)
        seconds, _ = timed(
            lambda entry=entry: (
                corpus_stats_apply(member_id=entry.member_id, added=[(entry.pk, entry.term_stats)]),
                entry_terms_index(member_id=entry.member_id, entries=[entry]),
            )
        )
        times.append(seconds)
    return {**percentiles(times), "mean": ms(statistics.mean(times))}


@dataclass(frozen=True)
class _Member:
    """One size's synthetic member, as `size_create` wrote it."""

    n: int
    synthetic: Synthetic
    insert_seconds: float
    index_bytes: dict[str, int] | None


def scale_run(options: dict, *, out: OutputWrapper) -> None:
    """`bench_recall --scale N [N ...]`: a synthetic member per size, each size's
    figures, every size timed again in the same rounds for the ratio; a JSON object
    last. Every member is deleted afterwards."""
    sizes = sorted(set(options["scale"]))
    out.write(
        f"Recall at scale on {connection.vendor} "
        f"({'real figures' if connection.vendor == 'postgresql' else 'not PostgreSQL'})"
    )
    figures: dict[str, Any] = {}
    identical = True
    peak_mb = 0.0
    members: dict[int, _Member] = {}
    try:
        for n in sizes:
            members[n] = size_create(n, options, out=out)
        for n in sizes:
            run = size_measure(members[n], options)
            figures[str(n)] = run
            identical = identical and run["identical_ids"]
            peak_mb = max(peak_mb, run["peak_traced_mb_production"])
            out.write(
                f"N={n:>7}: in-process p50 {run['in_process']['p50']} ms "
                f"p95 {run['in_process']['p95']} ms | recall_run p50 "
                f"{run['recall_run']['p50']} ms | HTTP p50 {run['http']['p50']} ms "
                f"p95 {run['http']['p95']} ms | reference p50 {run['reference']['p50']} ms "
                f"(x{run['speedup_vs_reference']}) | identical ids: {run['identical_ids']} | "
                f"index {run['index_bytes_per_entry']} B/entry | write-path index p50 "
                f"{run['write_index_ms']['p50']} ms"
            )
            if "in_process_against" in run:
                out.write(
                    f"N={n:>7}: --against in-process p50 {run['in_process_against']['p50']}"
                    f" ms p95 {run['in_process_against']['p95']} ms (this code"
                    f" {run['in_process']['p50']} / {run['in_process']['p95']}, the same"
                    f" rounds) | the same ids: {run['identical_to_against']}"
                )
        interleaved = _interleaved([members[n] for n in sizes], options)
    finally:
        for member in members.values():
            cleanup(member.synthetic.member.pk, member.synthetic.tenant.pk)
    smallest, largest = str(sizes[0]), str(sizes[-1])
    for name, times in interleaved.items():
        out.write(
            f"Every size in the same rounds ({name}): "
            + " | ".join(f"N={n:>7} p50 {times[n]['p50']} p95 {times[n]['p95']}" for n in times)
            + f" | ratio {round(times[largest]['p50'] / times[smallest]['p50'], 2)}"
        )
    this = interleaved["this"]
    summary = {
        "benchmark": "recall-scale",
        "database": connection.vendor,
        "queries_per_size": options["queries"],
        "in_process_means": "recall_request_build + recall_store.recall_resolve (no writes),"
        f" each query's median of {options['rounds']} rounds",
        "recall_run_means": "recall_service.recall_run in-process, writes rolled back",
        "http_means": "POST /api/v1/members/{id}/recall/ over 127.0.0.1, writes rolled back",
        "interleaved_means": "in-process as above, every size's query i in the same round"
        " one after the other (the machine's drift hits every size alike): the ratio",
        "sizes": figures,
        "interleaved": interleaved,
        f"ratio_p50_{largest}_over_{smallest}": round(
            this[largest]["p50"] / this[smallest]["p50"], 2
        ),
        f"ratio_p50_{largest}_over_{smallest}_sizes_apart": round(
            figures[largest]["in_process"]["p50"] / figures[smallest]["in_process"]["p50"], 2
        ),
        f"ratio_http_p50_{largest}_over_{smallest}": round(
            figures[largest]["http"]["p50"] / figures[smallest]["http"]["p50"], 2
        ),
        f"speedup_vs_reference_at_{largest}": figures[largest]["speedup_vs_reference"],
        "peak_traced_mb": peak_mb,
        "max_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "identical_ids": identical,
    }
    if "against" in interleaved:
        against = interleaved["against"]
        summary[f"ratio_p50_{largest}_over_{smallest}_against"] = round(
            against[largest]["p50"] / against[smallest]["p50"], 2
        )
    out.write(json.dumps(summary))


def size_create(n: int, options: dict, *, out: OutputWrapper) -> _Member:
    """A synthetic member of ``n`` entries, kept until the run ends, and what its
    writes added to the index tables."""
    tenant = Tenant.objects.create(name=f"Bench {n}", slug=f"bench-{uuid.uuid4().hex[:12]}")
    member = User.objects.create_user(
        email=f"bench-{uuid.uuid4().hex[:12]}@bench.invalid",
        password=None,
        kind=UserKind.MEMBER,
    )
    TenantMembership.objects.create(tenant=tenant, user=member)
    before = index_bytes()
    now = timezone.now()
    try:
        insert_seconds, synthetic = timed(
            lambda: populate(member, tenant, n, now=now, seed=options["seed"])
        )
    except BaseException:
        cleanup(member.pk, tenant.pk)
        raise
    vacuum_analyze()
    after = index_bytes()
    added = None
    if before is not None and after is not None:
        added = {table: after[table] - before[table] for table in after}
    out.write(f"N={n:>7}: inserted in {insert_seconds:.1f} s")
    return _Member(n, synthetic, insert_seconds, added)


def size_measure(sized: _Member, options: dict) -> dict[str, Any]:
    with transaction.atomic():
        try:
            run = _measure(sized.synthetic, sized.n, options, sized.insert_seconds)
            run["write_index_ms"] = write_index_cost(sized.synthetic, 50, seed=options["seed"])
        finally:
            transaction.set_rollback(True)
    sizes = sized.index_bytes
    run["index_bytes"] = sizes
    run["index_bytes_per_entry"] = round(sum(sizes.values()) / sized.n) if sizes else None
    return run


def _interleaved(sized: list[_Member], options: dict) -> dict[str, dict[str, Any]]:
    """Every size's in-process times again, the sizes alternating query by query in
    the same rounds (and, with --against, both stores): timed one size after the
    other, a machine whose speed drifts by a fifth in minutes (this one does) moves
    the ratio by as much."""
    resolvers = {"this": recall_resolve}
    if options.get("against_store") is not None:
        resolvers["against"] = options["against_store"].recall_resolve
    samples: dict[str, dict[int, list[list[float]]]] = {name: {} for name in resolvers}
    with transaction.atomic():
        try:
            plans = {}
            for member in sized:
                consents_grant(member.synthetic.member)
                queries = bench_queries(member.synthetic, options["queries"], seed=options["seed"])
                build = request_builder(member.synthetic.member)
                plans[member.n] = (queries, build, [timezone.now() for _ in queries])
                for name, resolve_in in resolvers.items():
                    samples[name][member.n] = [[] for _ in queries]
                    for q in queries[: options["warmup"]]:
                        now = timezone.now()
                        resolve_in(request=build(q, now), now=now)
            pairs = [(n, name) for n in plans for name in resolvers]
            for round_ in range(options["rounds"]):
                order = pairs if round_ % 2 == 0 else pairs[::-1]
                for index in range(options["queries"]):
                    for n, name in order:
                        queries, build, moments = plans[n]
                        q, now = queries[index], moments[index]
                        seconds, _ = timed(
                            lambda q=q, now=now, build=build, f=resolvers[name]: f(
                                request=build(q, now), now=now
                            )
                        )
                        samples[name][n][index].append(seconds)
        finally:
            transaction.set_rollback(True)
    return {
        name: {
            str(n): percentiles([statistics.median(s) for s in per_query])
            for n, per_query in by_size.items()
        }
        for name, by_size in samples.items()
    }


def _measure(synthetic: Synthetic, n: int, options: dict, insert_seconds: float) -> dict[str, Any]:
    member = synthetic.member
    consents_grant(member)
    queries = bench_queries(synthetic, options["queries"], seed=options["seed"])
    warmup = queries[: options["warmup"]]
    build = request_builder(member)

    def production(q: BenchQuery, now: datetime, resolve_in=recall_resolve):
        return resolve_in(request=build(q, now), now=now)

    # In-process, read-only: the store and the pipeline, every query once per round
    # at its own instant, its time the median of its rounds (a busy machine's noise).
    # With --against, the other checkout's store runs beside it, query by query, one
    # first in even rounds, the other in odd ones: the machine's drift hits both alike.
    resolvers = {"this": recall_resolve}
    if options.get("against_store") is not None:
        resolvers["against"] = options["against_store"].recall_resolve
    for q in warmup:
        for resolve_in in resolvers.values():
            production(q, timezone.now(), resolve_in)
    moments = [timezone.now() for _ in queries]
    samples = {name: [[] for _ in queries] for name in resolvers}
    listed: dict[str, list[list[str]]] = {name: [] for name in resolvers}
    for round_ in range(options["rounds"]):
        order = list(resolvers) if round_ % 2 == 0 else list(resolvers)[::-1]
        for index, (q, now) in enumerate(zip(queries, moments, strict=True)):
            for name in order:
                seconds, result = timed(
                    lambda q=q, now=now, f=resolvers[name]: production(q, now, f)
                )
                samples[name][index].append(seconds)
                ids = list(result.audit_envelope.returned_ids)
                if round_ == 0:
                    listed[name].append(ids)
                elif ids != listed[name][index]:
                    raise CommandError(f"a read-only recall changed between rounds: {q.query!r}")
    times = [statistics.median(s) for s in samples["this"]]
    in_process = percentiles(times)
    compared = {}
    if "against" in resolvers:
        compared = {
            "in_process_against": percentiles([statistics.median(s) for s in samples["against"]]),
            "identical_to_against": listed["against"] == listed["this"],
        }
    produced = listed["this"]

    # The reference on the same state and the same instants: every entry of the
    # member, whatever its lifecycle or scope, through the pure pipeline (timed like
    # the production path: request, candidates, corpus statistics, pipeline).
    corpus = corpus_stats_get(member_id=member.pk)
    reference_times = []
    identical = True
    mismatches = 0
    cached = None
    for index, (q, now) in enumerate(zip(queries, moments, strict=True)):
        request = build(q, now)
        if index < options["reference_timed"] or cached is None:

            def reference(q=q, now=now):
                return resolve(
                    member_candidates(member_id=member.pk),
                    build(q, now),
                    now,
                    corpus_stats=corpus_stats_get(member_id=member.pk),
                )

            gc.collect()
            seconds, result = timed(reference)
            reference_times.append(seconds)
            if cached is None:
                cached = member_candidates(member_id=member.pk)
        else:
            result = resolve(cached, request, now, corpus_stats=corpus)
        if list(result.audit_envelope.returned_ids) != produced[index]:
            identical = False
            mismatches += 1
    reference = percentiles(reference_times)
    timed_queries = len(reference_times)
    speedup = round(
        statistics.median(reference_times) / statistics.median(times[:timed_queries]), 1
    )

    # Peak memory of one recall, production vs reference (tracemalloc, one query).
    del cached
    gc.collect()
    probe = next((q for q in queries if q.query), queries[0])
    tracemalloc.start()
    production(probe, timezone.now())
    production_peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.reset_peak()
    resolve(
        member_candidates(member_id=member.pk),
        build(probe, timezone.now()),
        timezone.now(),
        corpus_stats=corpus,
    )
    reference_peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()

    # The full service in-process, writes (usage counters, record, audit) undone.
    actor = Actor.system("bench")
    run_times = []
    for q in queries:
        with rolled_back():
            seconds, _ = timed(
                lambda q=q: recall_run(request=build(q, timezone.now()), actor=actor)
            )
        run_times.append(seconds)

    # Over HTTP: a service client's token, real requests to 127.0.0.1.
    client = ServiceClient.objects.create(
        consumer=Consumer.ASSISTANT, label=f"bench-{uuid.uuid4().hex[:12]}"
    )
    _, token = token_issue(owner=client)
    http_times = []
    with SharedConnectionServer() as server:
        url = f"http://127.0.0.1:{server.port}/api/v1/members/{member.pk}/recall/"
        for q in warmup:
            with rolled_back():
                post(url, token, q.payload())
        for q in queries:
            with rolled_back():
                seconds, body = timed(lambda q=q: post(url, token, q.payload()))
            http_times.append(seconds)
            if "entries" not in body:
                raise CommandError(f"HTTP recall failed: {body}")
    live = MemoryEntry.objects.filter(member=member, lifecycle=Lifecycle.ACTIVE).count()
    return {
        "entries": n,
        "active_entries": live,
        "postings": MemoryEntryTerm.objects.filter(entry__member_id=member.pk).count(),
        "insert_seconds": round(insert_seconds, 1),
        "in_process": in_process,
        "recall_run": percentiles(run_times),
        "http": percentiles(http_times),
        "reference": reference,
        "reference_timed_queries": timed_queries,
        "speedup_vs_reference": speedup,
        "peak_traced_mb_production": round(production_peak / 2**20, 2),
        "peak_traced_mb_reference": round(reference_peak / 2**20, 2),
        "identical_ids": identical,
        "mismatched_queries": mismatches,
        **compared,
    }
