"""``bench_recall --long-query``: what a long query costs against a one-word one.

One synthetic member (`memory.bench.synthetic`, 2,500 entries by default, ``--long-entries``)
on the configured database; a one-word query and a 400-word one (``--long-words``,
sentences of the synthetic member's own vocabulary, so that most of its stems are
held by some entry) recalled by the `assistant` consumer, each in process through the
store (`recall_request_build` + `recall_resolve`) and through the service
(`recall_run`, its writes rolled back), each query's time the median of its rounds. A
query is ranked on at most `memory.recall.MAX_QUERY_TERMS` distinct stems
(`memory.recall.query_cut`); the ratio is what the cut buys (issue 43: at most 3x).
"""

from __future__ import annotations

import json
import random
import statistics
import uuid

from django.core.management.base import OutputWrapper
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from iris_site.audit.events import Actor
from iris_site.enums import UserKind
from iris_site.models import Tenant, TenantMembership, User
from memory.bench.harness import cleanup, ms, rolled_back, timed, vacuum_analyze
from memory.bench.queries import QUERY_TEMPLATES, BenchQuery, request_builder
from memory.bench.synthetic import TEMPLATES, Vocabulary, consents_grant, populate
from memory.recall import MAX_QUERY_TERMS, query_terms
from memory.recall.service import recall_run
from memory.recall.store import recall_resolve

ONE_WORD = "coffee"


def long_query(words: int, *, seed: int) -> str:
    """``words`` words of the synthetic member's sentences (its vocabulary's names,
    places, foods...), deterministic for ``seed``."""
    vocabulary = Vocabulary(random.Random(seed))  # noqa: S311 - test data
    rng = random.Random(seed + 1)  # noqa: S311
    text: list[str] = []
    while len(text) < words:
        text += vocabulary.fill(rng, rng.choice(TEMPLATES + QUERY_TEMPLATES)).split()
    return " ".join(text[:words])


def long_query_run(options: dict, *, out: OutputWrapper) -> dict:
    """Time a one-word and a long query on one synthetic member; print a line per query
    and a JSON summary last. The member is deleted afterwards."""
    n, words, rounds = options["long_entries"], options["long_words"], options["rounds"]
    tenant = Tenant.objects.create(name="Bench long", slug=f"bench-{uuid.uuid4().hex[:12]}")
    member = User.objects.create_user(
        email=f"bench-{uuid.uuid4().hex[:12]}@bench.invalid", password=None, kind=UserKind.MEMBER
    )
    TenantMembership.objects.create(tenant=tenant, user=member)
    text = long_query(words, seed=options["seed"])
    figures: dict[str, dict] = {}
    try:
        populate(member, tenant, n, now=timezone.now(), seed=options["seed"])
        vacuum_analyze()  # the planner's statistics of the new rows, as --scale does
        with transaction.atomic():
            try:
                consents_grant(member)
                build = request_builder(member)
                actor = Actor.system("bench")
                queries = {"one_word": ONE_WORD, "long": text}
                samples = {name: {"store": [], "recall_run": []} for name in queries}
                statements = {}
                for name, query in queries.items():  # warm-up, and the statements a recall runs
                    q = BenchQuery("assistant", {"kind": "profile"}, query)
                    now = timezone.now()
                    with CaptureQueriesContext(connection) as captured:
                        recall_resolve(request=build(q, now), now=now)
                    statements[name] = len(captured)
                for round_ in range(rounds):
                    order = list(queries) if round_ % 2 == 0 else list(queries)[::-1]
                    for name in order:
                        q = BenchQuery("assistant", {"kind": "profile"}, queries[name])
                        now = timezone.now()
                        seconds, _ = timed(
                            lambda q=q, now=now: recall_resolve(request=build(q, now), now=now)
                        )
                        samples[name]["store"].append(seconds)
                        with rolled_back():
                            seconds, _ = timed(
                                lambda q=q: recall_run(
                                    request=build(q, timezone.now()), actor=actor
                                )
                            )
                        samples[name]["recall_run"].append(seconds)
            finally:
                transaction.set_rollback(True)
        for name, query in queries.items():
            figures[name] = {
                "words": len(query.split()),
                "distinct_stems": len(query_terms(query)),
                "store_ms": ms(statistics.median(samples[name]["store"])),
                "recall_run_ms": ms(statistics.median(samples[name]["recall_run"])),
                "statements": statements[name],
            }
            out.write(
                f"{name:>8}: {figures[name]['words']} words, {figures[name]['distinct_stems']}"
                f" distinct stems | store {figures[name]['store_ms']} ms | recall_run"
                f" {figures[name]['recall_run_ms']} ms | {statements[name]} statements"
            )
    finally:
        cleanup(member.pk, tenant.pk)
    summary = {
        "benchmark": "recall-long-query",
        "database": connection.vendor,
        "entries": n,
        "max_query_terms": MAX_QUERY_TERMS,
        "rounds": rounds,
        **figures,
        "ratio_store": round(figures["long"]["store_ms"] / figures["one_word"]["store_ms"], 2),
        "ratio_recall_run": round(
            figures["long"]["recall_run_ms"] / figures["one_word"]["recall_run_ms"], 2
        ),
    }
    out.write(
        f"long / one word: store x{summary['ratio_store']}, recall_run"
        f" x{summary['ratio_recall_run']} (at most {MAX_QUERY_TERMS} stems a query)"
    )
    out.write(json.dumps(summary))
    return summary
