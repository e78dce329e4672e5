"""``bench_recall --locomo``: LoCoMo through the product, and its peers.

Each conversation is written through the services a surface calls (turns appended, one
memory per turn quoting it, consent in the ledger; `locomo_ingest`) and every question
recalled by a service client through the recall service (`locomo_recall`), all rolled
back. Beside it, the previous figures: candidates the benchmark builds itself through
the pure pipeline (`memory.bench.locomo`). With peers: the same corpus in PostgreSQL
full-text search (`locomo_postgres_fts`).
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from django.core.management.base import CommandError, OutputWrapper
from django.db import connection, transaction

from iris_site.audit.events import Actor
from iris_site.enums import Consumer, UserKind
from iris_site.errors import DomainError
from iris_site.models import ServiceClient, User
from memory.bench import locomo
from memory.bench.harness import percentiles, rolled_back, timed, vacuum_analyze
from memory.bench.synthetic import consents_grant
from memory.contracts import MemoryWriteRequest
from memory.enums import MemoryCategory, Origin, ProvenanceKind, ScopeKind
from memory.recall.rankers import bm25_v1
from memory.recall.service import recall_request_build, recall_run
from memory.recall.store import recall_resolve
from memory.selectors import principal_capabilities
from memory.services import memory_remember
from memory.turns import conversation_turn_append

LOCOMO_CONSENTS = ("data_processing", "data_storage")


@dataclass
class ProductConversation:
    """One LoCoMo conversation as a member's memory written through the write path."""

    sample_id: str
    member: User
    questions: tuple[locomo.LocomoQuestion, ...]  # evidence as entry ids
    now: datetime
    refused: int = 0


def locomo_ingest(sample: dict[str, Any], *, client: ServiceClient) -> ProductConversation:
    """A new member who granted processing and storage in the ledger (a day before the
    first session), then every turn as a surface sends it: the turn appended to the turn
    log (`conversation_turn_append`), then one memory per turn (`memory_remember`, the
    client as a service actor): a profile fact, user-stated, quoting that turn as its
    `session-turn` provenance, dated by its session. The write path indexes it with its
    neighbour context (`memory.recall.context`)."""
    conversation = sample["conversation"]
    sessions = locomo.sessions_of(conversation)
    dates = {
        n: locomo.parse_session_datetime(conversation[f"session_{n}_date_time"]) for n in sessions
    }
    member = User.objects.create_user(
        email=f"locomo-{uuid.uuid4().hex[:12]}@bench.invalid", password=None, kind=UserKind.MEMBER
    )
    consents_grant(member, LOCOMO_CONSENTS, now=min(dates.values()) - timedelta(days=1))
    actor = Actor.of(client)
    known: dict[str, str] = {}
    refused = 0
    for number in sessions:
        when, session_id = dates[number], f"session-{number}"
        for turn in conversation[f"session_{number}"]:
            body = f"{turn['speaker']}: {turn['text']}"
            stored = conversation_turn_append(
                member=member,
                session_id=session_id,
                speaker="member",
                text=body,
                consumer=client.consumer,
                actor=actor,
            )
            write = MemoryWriteRequest.model_validate(
                {
                    "scope": {"kind": ScopeKind.PROFILE},
                    "category": MemoryCategory.FACT,
                    "body": body,
                    "origin": Origin.USER_STATED,
                    "provenance": [
                        {
                            "kind": ProvenanceKind.SESSION_TURN,
                            "ref": str(stored.pk),
                            "captured_at": when.isoformat(),
                        }
                    ],
                },
                context={"user_id": member.pk},
            )
            try:
                result = memory_remember(
                    member=member,
                    write=write,
                    actor=actor,
                    consumer=client.consumer,
                    session_id=session_id,
                    now=when,
                )
            except DomainError:
                refused += 1
                continue
            known.setdefault(str(turn["dia_id"]), str(result.entry.pk))
    return ProductConversation(
        sample_id=str(sample["sample_id"]),
        member=member,
        questions=locomo.questions_of(sample, known),
        now=max(dates.values()) + timedelta(minutes=1),
        refused=refused,
    )


def _locomo_request(
    conversation: ProductConversation, question: str, *, client: ServiceClient, k: int
):
    return recall_request_build(
        member_id=conversation.member.pk,
        capabilities=principal_capabilities(client),
        surface=Consumer.ASSISTANT,
        scope={"kind": ScopeKind.PROFILE},
        query=question,
        budget=k,
        now=conversation.now,
    )


def locomo_recall(
    conversation: ProductConversation, question: str, *, client: ServiceClient, k: int
) -> list[str]:
    """The question as the client's recall (`recall_request_build` + `recall_run`, what
    the recall API calls), its writes (usage counters, record, audit) rolled back so
    every question meets the same memory."""
    with rolled_back():
        request = _locomo_request(conversation, question, client=client, k=k)
        result = recall_run(request=request, actor=Actor.of(client), now=conversation.now)
    return list(result.audit_envelope.returned_ids)


def locomo_recall_previous(
    conversation: ProductConversation, question: str, *, client: ServiceClient, k: int
) -> list[str]:
    """The same request over the same stored memory, resolved by the store `recall_run`
    uses (`recall_resolve`, read-only) with the previous default ranker (`bm25-v1`)."""
    request = _locomo_request(conversation, question, client=client, k=k)
    result = recall_resolve(request=request, now=conversation.now, semantic=bm25_v1)
    return list(result.audit_envelope.returned_ids)


def locomo_product(samples: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Evidence recall of the product on LoCoMo: ingested and recalled through the
    services (see `locomo_ingest`, `locomo_recall`), all of it rolled back."""
    k = max(locomo.KS)
    sums: dict[str, float] = {}
    per_category: dict[int, list[float]] = {}
    conversations = questions = refused = 0
    times: list[float] = []
    with transaction.atomic():
        try:
            client = ServiceClient.objects.create(
                consumer=Consumer.ASSISTANT, label=f"bench-{uuid.uuid4().hex[:12]}"
            )
            ingested = [locomo_ingest(sample, client=client) for sample in samples]
            # The planner's statistics as a live database has them after such writes (the
            # full-text peer analyzes its table too).
            vacuum_analyze(vacuum=False)
            for conversation in ingested:
                conversations += 1
                refused += conversation.refused
                for q in conversation.questions:
                    seconds, ranked = timed(
                        lambda q=q, c=conversation: locomo_recall(c, q.question, client=client, k=k)
                    )
                    times.append(seconds)
                    questions += 1
                    for metric, value in locomo.score(ranked, q.evidence).items():
                        sums[metric] = sums.get(metric, 0.0) + value
                    hit = locomo.score(ranked, q.evidence)[f"recall_any@{k}"]
                    per_category.setdefault(q.category, []).append(hit)
                    previous = locomo_recall_previous(conversation, q.question, client=client, k=k)
                    for metric, value in locomo.score(previous, q.evidence).items():
                        key = f"previous_default.{metric}"
                        sums[key] = sums.get(key, 0.0) + value
        finally:
            transaction.set_rollback(True)
    summary: dict[str, Any] = {"conversations": conversations, "questions": questions}
    summary["refused_writes"] = refused
    summary["recall_run_latency_ms"] = percentiles(times) if times else None
    for metric, total in sorted(sums.items()):
        summary[metric] = round(total / questions, 4) if questions else 0.0
    for category, hits in sorted(per_category.items()):
        summary[f"recall_any@{k}.cat{category}"] = round(sum(hits) / len(hits), 4)
    return summary


# --- peers: the same corpus in another engine ----------------------------------------------

_FTS_TABLE = "bench_locomo_fts"


def locomo_postgres_fts(samples: Iterable[dict[str, Any]]) -> dict[str, Any] | None:
    """PostgreSQL full-text search on the same LoCoMo corpus (one document per turn,
    ``"{speaker}: {text}"``): a `tsvector` column (English configuration) with a GIN
    index, each question's lexemes OR-ed into a `tsquery`, ranked by `ts_rank_cd` (ties
    to the earlier turn). A temporary table, dropped at the end. None off PostgreSQL."""
    if connection.vendor != "postgresql":
        return None
    conversations = [locomo.build_conversation(sample) for sample in samples]
    k = max(locomo.KS)
    sums: dict[str, float] = {}
    per_category: dict[int, list[float]] = {}
    times: list[float] = []
    with transaction.atomic(), connection.cursor() as cursor:
        try:
            cursor.execute(
                f"CREATE TEMP TABLE {_FTS_TABLE} (member text, entry_id text, body text,"
                " document tsvector) ON COMMIT DROP"
            )
            for conversation in conversations:
                cursor.executemany(
                    f"INSERT INTO {_FTS_TABLE} VALUES (%s, %s, %s,"  # noqa: S608 - fixed name
                    " to_tsvector('english', %s))",
                    [
                        (conversation.user_id, c.entry_id, c.body, c.body)
                        for c in conversation.candidates
                    ],
                )
            cursor.execute(f"CREATE INDEX ON {_FTS_TABLE} USING GIN (document)")
            cursor.execute(f"ANALYZE {_FTS_TABLE}")
            statement = (
                f"SELECT entry_id FROM {_FTS_TABLE}, "  # noqa: S608 - fixed name
                "CAST(NULLIF(replace(CAST(plainto_tsquery('english', %s) AS text), '&', '|'),"
                " '') AS tsquery) AS q WHERE member = %s AND document @@ q"
                " ORDER BY ts_rank_cd(document, q) DESC, entry_id LIMIT %s"
            )
            questions = 0
            for conversation in conversations:
                for q in conversation.questions:
                    start = time.perf_counter()
                    cursor.execute(statement, [q.question, conversation.user_id, k])
                    ranked = [entry_id for (entry_id,) in cursor.fetchall()]
                    times.append(time.perf_counter() - start)
                    questions += 1
                    scores = locomo.score(ranked, q.evidence)
                    for metric, value in scores.items():
                        sums[metric] = sums.get(metric, 0.0) + value
                    per_category.setdefault(q.category, []).append(scores[f"recall_any@{k}"])
        finally:
            transaction.set_rollback(True)
    summary: dict[str, Any] = {"engine": "postgresql-fts-ts_rank_cd", "questions": questions}
    for metric, total in sorted(sums.items()):
        summary[metric] = round(total / questions, 4) if questions else 0.0
    for category, hits in sorted(per_category.items()):
        summary[f"recall_any@{k}.cat{category}"] = round(sum(hits) / len(hits), 4)
    summary["latency_ms"] = percentiles(times)
    return summary


def locomo_report(path: Path, *, peers: bool = False, out: OutputWrapper) -> None:
    """`bench_recall --locomo [PATH] [--peers]`: the product's evidence recall on
    LoCoMo, the benchmark's own profiles (the previous figures) and, with ``peers``,
    PostgreSQL full-text search on the same corpus; a JSON object last."""
    if not path.is_file():
        raise CommandError(f"No LoCoMo file at {path}")
    samples = locomo.load_locomo(path)
    k = max(locomo.KS)
    out.write(f"LoCoMo evidence recall on {path.name}: {locomo.CREDIT}")
    product = locomo_product(samples)
    out.write(
        f"product (write path + recall service on {connection.vendor}): "
        f"{product['conversations']} conversations, {product['questions']} questions, "
        f"{product['refused_writes']} writes refused"
    )
    out.write(
        f"  any@5 {product['recall_any@5']:.3f}  any@10 {product[f'recall_any@{k}']:.3f}"
        f"  (previous default, bm25-v1: {product[f'previous_default.recall_any@{k}']:.3f})"
        f"  frac@10 {product[f'recall_frac@{k}']:.3f}  per category @10: "
        + ", ".join(
            f"{key.rsplit('.cat', 1)[1]}: {value:.3f}"
            for key, value in product.items()
            if ".cat" in key
        )
    )
    # The previous default: candidates the benchmark builds itself (the neighbour
    # context computed by `memory.bench.locomo`), through the pure pipeline.
    summary = locomo.evaluate([locomo.build_conversation(s) for s in samples])
    out.write(
        "profiles built by the benchmark itself (the previous figures), "
        f"{summary['conversations']} conversations, {summary['questions']} questions"
    )
    out.write(f"{'config':<18}{'mode':<10}{'any@5':>8}{'any@10':>8}{'frac@10':>9}")
    for config in locomo.CONFIGS:
        for mode in ("semantic", "pipeline"):
            key = f"{config.name}.{mode}"
            out.write(
                f"{config.name:<18}{mode:<10}"
                f"{summary[f'{key}.recall_any@5']:>8.3f}"
                f"{summary[f'{key}.recall_any@10']:>8.3f}"
                f"{summary[f'{key}.recall_frac@10']:>9.3f}"
            )
    result = {**summary, "product": product}
    if peers:
        fts = locomo_postgres_fts(samples)
        result["peers"] = {"postgresql-fts": fts}
        out.write(f"{'engine':<44}{'any@10':>8}{'p50 ms':>9}{'p95 ms':>9}")
        latency = product["recall_run_latency_ms"]
        out.write(
            f"{'Iris (write path, recall_run, in process)':<44}"
            f"{product[f'recall_any@{k}']:>8.3f}{latency['p50']:>9}{latency['p95']:>9}"
        )
        if fts is None:
            out.write("PostgreSQL full-text search: skipped (not on PostgreSQL)")
        else:
            out.write(
                f"{'PostgreSQL FTS (tsvector, GIN, ts_rank_cd)':<44}"
                f"{fts[f'recall_any@{k}']:>8.3f}{fts['latency_ms']['p50']:>9}"
                f"{fts['latency_ms']['p95']:>9}"
            )
    out.write(json.dumps(result))
