"""Offline evidence-recall benchmark on LoCoMo, for the ``bench_recall`` command.

LoCoMo: Maharana et al., "Evaluating Very Long-Term Conversational Memory of LLM
Agents", ACL 2024 (arXiv:2402.17753), https://github.com/snap-research/locomo,
CC BY-NC 4.0. The data is read from where it lies and used only for evaluation;
nothing of it is copied into the project.

This module builds the benchmark's own profile (the previous figures, kept for
comparison; the product's figure comes from ``bench_recall``, which writes through the
services): each conversation becomes one member's memory: every turn is an active,
user-stated profile entry with body ``"{speaker}: {text}"``, dated by its session,
with one ``session-turn`` provenance link naming the session and the turn. Its
``TermStats`` are made here, including the neighbour context of the
``NEIGHBOUR_WINDOW`` turns on each side in the same session (what the write path now
computes from the stored turns, `memory.recall.context`). Each non-adversarial
question (category != 5) with resolvable evidence becomes a recall at one minute after
the conversation's last session.

Rankings are scored for (a) the semantic factor alone, every turn ranked by it, and
(b) the full pipeline as the product runs it: read by the `assistant` consumer with its
own capabilities (its surface, the budget narrowed to the largest k), for a member who
granted processing and storage consent (grant events folded as the consent ledger folds
them, `consent.policy.fold_latest`), so the read gate's base-consent and allow-list
checks run as for a real member.
Ties go to the earlier turn: entry ids sort in conversation order.

Run: ``python -m memory.bench.locomo PATH`` prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from consent.enums import BaseConsentType, ConsentStatus
from consent.policy import ConsentState, fold_latest, is_in_force
from iris_site.enums import Consumer
from memory.access.capabilities import capabilities_for
from memory.enums import Lifecycle, MemoryCategory, Origin, ProvenanceKind, ScopeKind
from memory.recall.pipeline import (
    RELEVANCE_V1,
    SEED_V1,
    Blend,
    ProvenanceLink,
    RecallCandidate,
    RecallRequest,
    ScopeKey,
    resolve,
)
from memory.recall.rankers import (
    NEIGHBOUR_WINDOW,
    CorpusStats,
    SemanticFn,
    bm25,
    bm25_no_context,
    bm25_v1,
    corpus_stats_for,
    jaccard,
    term_stats_for,
)

CREDIT = (
    "LoCoMo (Maharana et al., ACL 2024, arXiv:2402.17753; "
    "github.com/snap-research/locomo; CC BY-NC 4.0), used for evaluation only"
)
ADVERSARIAL_CATEGORY = 5
KS = (5, 10)

_SESSION_RE = re.compile(r"^session_(\d+)$")
_DIA_RE = re.compile(r"D(\d+):(\d+)")


@dataclass(frozen=True)
class BenchConfig:
    """One ranker + blend pairing measured by the benchmark."""

    name: str
    semantic: SemanticFn
    blend: Blend


CONFIGS: tuple[BenchConfig, ...] = (
    BenchConfig("jaccard", jaccard, SEED_V1),  # the seed end to end
    BenchConfig("seed_v1", bm25, SEED_V1),  # a good ranker under the seed's blend
    BenchConfig("default", bm25, RELEVANCE_V1),
    BenchConfig("previous_default", bm25_v1, RELEVANCE_V1),  # textbook b 0.75
    BenchConfig("bm25_no_context", bm25_no_context, RELEVANCE_V1),
)


@dataclass(frozen=True)
class LocomoQuestion:
    question: str
    category: int
    evidence: frozenset[str]  # entry ids


@dataclass(frozen=True)
class LocomoConversation:
    sample_id: str
    user_id: str
    candidates: tuple[RecallCandidate, ...]
    questions: tuple[LocomoQuestion, ...]
    now: datetime
    corpus_stats: CorpusStats
    consent_types: frozenset[str]


# The benchmark member's ledger: processing and storage granted once, nothing sensitive.
_GRANTED = (BaseConsentType.DATA_PROCESSING.value, BaseConsentType.DATA_STORAGE.value)
READER = capabilities_for(Consumer.ASSISTANT)


def _consents_in_force(member: str, now: datetime) -> frozenset[str]:
    events = (ConsentState(t, ConsentStatus.GRANTED, f"{member}:{t}", None) for t in _GRANTED)
    return frozenset(t for t, state in fold_latest(events).items() if is_in_force(state, now))


def load_locomo(path: str | Path) -> list[dict[str, Any]]:
    with Path(path).open(encoding="utf-8") as handle:
        data = json.load(handle)
    if not isinstance(data, list):
        raise ValueError("a LoCoMo file is a JSON list of conversations")
    return data


def parse_session_datetime(text: str) -> datetime:
    """``"1:56 pm on 8 May, 2023"`` → an aware datetime (LoCoMo gives no zone: UTC)."""
    cleaned = " ".join(text.replace(",", " ").split())
    return datetime.strptime(cleaned.upper(), "%I:%M %p ON %d %B %Y").replace(tzinfo=UTC)


def entry_id_for(sample_id: str, session: int, turn: int) -> str:
    # Zero-padded so that sorting ids sorts turns in conversation order.
    return f"{sample_id}:s{session:03d}:t{turn:04d}"


def parse_evidence(raw: Iterable[str], known: Mapping[str, str]) -> frozenset[str]:
    """Evidence strings → entry ids, the way the data's README says to read them:
    pull out every ``D<n>:<m>``, drop leading zeros, drop ids that resolve to no turn."""
    found: set[str] = set()
    for item in raw:
        for session, turn in _DIA_RE.findall(str(item)):
            entry_id = known.get(f"D{int(session)}:{int(turn)}")
            if entry_id is not None:
                found.add(entry_id)
    return frozenset(found)


def sessions_of(conversation: Mapping[str, Any]) -> list[int]:
    return sorted(
        int(m.group(1))
        for key, turns in conversation.items()
        if (m := _SESSION_RE.match(key)) and isinstance(turns, list) and turns
    )


def build_conversation(
    sample: Mapping[str, Any], *, neighbour_window: int = NEIGHBOUR_WINDOW
) -> LocomoConversation:
    """One LoCoMo conversation as one member's memory plus its recall questions."""
    sample_id = str(sample["sample_id"])
    user_id = f"locomo-{sample_id}"
    conversation = sample["conversation"]
    scope = ScopeKey(kind=ScopeKind.PROFILE, user_id=user_id)
    candidates: list[RecallCandidate] = []
    known: dict[str, str] = {}
    last_session = None
    for session in sessions_of(conversation):
        when = parse_session_datetime(conversation[f"session_{session}_date_time"])
        last_session = when if last_session is None else max(last_session, when)
        turns = conversation[f"session_{session}"]
        bodies = [f"{turn['speaker']}: {turn['text']}" for turn in turns]
        for index, turn in enumerate(turns):
            entry_id = entry_id_for(sample_id, session, index + 1)
            dia_id = str(turn["dia_id"])
            known.setdefault(dia_id, entry_id)
            lo, hi = max(0, index - neighbour_window), min(len(turns), index + neighbour_window + 1)
            neighbours = [bodies[j] for j in range(lo, hi) if j != index]
            candidates.append(
                RecallCandidate(
                    entry_id=entry_id,
                    revision_id=f"{entry_id}:r1",
                    user_id=user_id,
                    tenant_id=None,
                    scope=scope,
                    category=MemoryCategory.FACT,
                    body=bodies[index],
                    origin=Origin.USER_STATED,
                    lifecycle=Lifecycle.ACTIVE,
                    updated_at=when,
                    term_stats=term_stats_for(bodies[index], neighbours=neighbours),
                    provenance_chain=(
                        ProvenanceLink(
                            kind=ProvenanceKind.SESSION_TURN,
                            ref=f"{sample_id}/session_{session}/{dia_id}",
                            captured_at=when,
                        ),
                    ),
                )
            )
    if last_session is None:
        raise ValueError(f"conversation {sample_id} has no turns")
    questions = questions_of(sample, known)
    now = last_session + timedelta(minutes=1)
    return LocomoConversation(
        sample_id=sample_id,
        user_id=user_id,
        candidates=tuple(candidates),
        questions=questions,
        now=now,
        corpus_stats=corpus_stats_for(c.term_stats for c in candidates),
        consent_types=_consents_in_force(user_id, now),
    )


def questions_of(sample: Mapping[str, Any], known: Mapping[str, str]) -> tuple[LocomoQuestion, ...]:
    """The non-adversarial questions whose evidence resolves to entries (``known``: turn
    ``dia_id`` → entry id)."""
    questions = []
    for qa in sample.get("qa", []):
        category = int(qa.get("category", 0))
        if category == ADVERSARIAL_CATEGORY:
            continue
        evidence = parse_evidence(qa.get("evidence", []), known)
        if evidence:
            questions.append(LocomoQuestion(str(qa["question"]), category, evidence))
    return tuple(questions)


def semantic_ranking(
    conversation: LocomoConversation, question: str, semantic: SemanticFn, *, k: int
) -> list[str]:
    bind = getattr(semantic, "bind", None)
    if callable(bind):
        score = bind(question, conversation.corpus_stats)
    else:

        def score(candidate: RecallCandidate) -> float:
            return semantic(question, candidate, conversation.corpus_stats)

    scored = sorted((-score(c), c.entry_id) for c in conversation.candidates)
    return [entry_id for _, entry_id in scored[:k]]


def pipeline_ranking(
    conversation: LocomoConversation, question: str, config: BenchConfig, *, k: int
) -> list[str]:
    request = RecallRequest(
        user_id=conversation.user_id,
        surface=READER.require_surface(Consumer.ASSISTANT),
        scope=ScopeKey(kind=ScopeKind.PROFILE, user_id=conversation.user_id),
        capabilities=READER,
        consent_types=conversation.consent_types,
        query=question,
        budget=k,
    )
    result = resolve(
        conversation.candidates,
        request,
        conversation.now,
        semantic=config.semantic,
        blend=config.blend,
        corpus_stats=conversation.corpus_stats,
    )
    return list(result.audit_envelope.returned_ids)


def score(ranked: Sequence[str], evidence: frozenset[str]) -> dict[str, float]:
    out: dict[str, float] = {}
    for k in KS:
        top = set(ranked[:k])
        out[f"recall_any@{k}"] = float(bool(top & evidence))
        out[f"recall_frac@{k}"] = len(top & evidence) / len(evidence)
    return out


def evaluate(
    conversations: Sequence[LocomoConversation],
    *,
    configs: Sequence[BenchConfig] = CONFIGS,
) -> dict[str, Any]:
    """Mean evidence recall over all questions, flat keys
    ``<config>.<semantic|pipeline>.<metric>`` plus ``...recall_any@10.cat<n>``."""
    k = max(KS)
    sums: dict[str, float] = defaultdict(float)
    per_category: dict[str, float] = defaultdict(float)
    category_counts: dict[int, int] = defaultdict(int)
    total = 0
    for conversation in conversations:
        for question in conversation.questions:
            total += 1
            category_counts[question.category] += 1
            for config in configs:
                rankings = {
                    "semantic": semantic_ranking(
                        conversation, question.question, config.semantic, k=k
                    ),
                    "pipeline": pipeline_ranking(conversation, question.question, config, k=k),
                }
                for mode, ranked in rankings.items():
                    for metric, value in score(ranked, question.evidence).items():
                        sums[f"{config.name}.{mode}.{metric}"] += value
                        if metric == f"recall_any@{k}":
                            key = f"{config.name}.{mode}.{metric}.cat{question.category}"
                            per_category[key] += value
    result: dict[str, Any] = {"benchmark": "locomo-evidence-recall", "credit": CREDIT}
    result["conversations"] = len(conversations)
    result["questions"] = total
    for key in sorted(sums):
        if key.endswith((f"recall_any@{KS[0]}", f"recall_any@{k}", f"recall_frac@{k}")):
            result[key] = round(sums[key] / total, 4) if total else 0.0
    for key in sorted(per_category):
        category = int(key.rsplit(".cat", 1)[1])
        result[key] = round(per_category[key] / category_counts[category], 4)
    return result


def run_benchmark(path: str | Path, *, configs: Sequence[BenchConfig] = CONFIGS) -> dict[str, Any]:
    conversations = [build_conversation(sample) for sample in load_locomo(path)]
    return evaluate(conversations, configs=configs)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", help="a LoCoMo JSON file, e.g. locomo_dev.json")
    args = parser.parse_args(argv)
    summary = run_benchmark(args.path)
    sys.stdout.write(json.dumps(summary, sort_keys=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
