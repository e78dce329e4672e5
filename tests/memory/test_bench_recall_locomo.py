"""`bench_recall --locomo` measures the product: it writes and recalls through the same
services the API calls, and the neighbour context comes from the write path."""

from unittest import mock

import pytest
from django.db import connection

from iris_site.keys.envelope import member_tokens
from memory.bench import recall_locomo as bench
from memory.http import surfaces
from memory.models import MemoryEntry
from memory.recall import apis as recall_apis
from memory.recall.rankers import TermStats

pytestmark = pytest.mark.django_db

SAMPLE = {
    "sample_id": "tiny",
    "conversation": {
        "speaker_a": "Ana",
        "speaker_b": "Ben",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a puppy called Biscuit"},
            {"speaker": "Ben", "dia_id": "D1:2", "text": "What breed is it?"},
            {"speaker": "Ana", "dia_id": "D1:3", "text": "A beagle, from the shelter"},
        ],
        "session_2_date_time": "10:00 am on 20 May, 2023",
        "session_2": [
            {"speaker": "Ben", "dia_id": "D2:1", "text": "I started pottery classes"},
            {"speaker": "Ana", "dia_id": "D2:2", "text": "Send me a photo of the bowl"},
        ],
    },
    "qa": [
        {"question": "What is the name of Ana's puppy?", "evidence": ["D1:1"], "category": 4},
        {"question": "Which breed is the dog?", "evidence": ["D1:3"], "category": 1},
        {"question": "What class did Ben start?", "evidence": ["D2:1"], "category": 4},
        {"question": "Adversarial", "evidence": ["D2:2"], "category": 5},
    ],
}


def test_the_bench_uses_the_services_the_api_uses():
    # the very functions the remember, turn and recall endpoints call
    assert bench.memory_remember is surfaces.memory_remember
    assert bench.conversation_turn_append is surfaces.conversation_turn_append
    assert bench.recall_request_build is recall_apis.recall_request_build
    assert bench.recall_run is recall_apis.recall_run
    assert bench.principal_capabilities is recall_apis.principal_capabilities


def test_locomo_ingests_through_the_write_path_and_recalls_through_the_recall_service():
    # given spies on the services the bench calls
    spies = {
        name: mock.patch.object(bench, name, wraps=getattr(bench, name))
        for name in ("conversation_turn_append", "memory_remember", "recall_run")
    }
    with (
        spies["conversation_turn_append"] as turns,
        spies["memory_remember"] as remember,
        spies["recall_run"] as recall,
    ):
        # when
        summary = bench.locomo_product([SAMPLE])
    # then every turn was appended and remembered by a service client, every question
    # recalled by it, and nothing refused
    assert turns.call_count == 5 and remember.call_count == 5
    assert recall.call_count == 3
    assert summary["questions"] == 3 and summary["refused_writes"] == 0
    for call in remember.call_args_list:
        assert call.kwargs["actor"].type == "service"
        assert call.kwargs["write"].origin == "user-stated"
        assert call.kwargs["write"].provenance[0].kind == "session-turn"
    for call in recall.call_args_list:
        assert call.kwargs["actor"].type == "service"
    assert summary["recall_any@10"] == 1.0
    # the previous default ranker, over the same stored memory and through the same store
    assert summary["previous_default.recall_any@10"] == 1.0
    assert set(summary) >= {"recall_any@10.cat1", "recall_any@10.cat4"}
    assert "recall_any@10.cat5" not in summary


def test_the_write_path_gives_each_turn_its_neighbours_as_context():
    # given
    client = bench.ServiceClient.objects.create(consumer="assistant", label="bench-test")
    # when
    conversation = bench.locomo_ingest(SAMPLE, client=client)
    # then the first turn's memory holds the next two turns' stems as its context
    # (by its body: the first session's turns share one time, so no order tells them apart)
    entries = MemoryEntry.objects.filter(member=conversation.member)
    (adopted,) = [e for e in entries if e.body.startswith("Ana: I adopted")]
    first = TermStats.from_json(adopted.term_stats)
    tokens = member_tokens(conversation.member.pk, ["breed", "beagl", "shelter", "potteri"])
    assert {tokens["breed"], tokens["beagl"], tokens["shelter"]} <= set(first.context_terms)
    assert tokens["potteri"] not in first.context_terms  # another session


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL full text")
def test_peers_rank_the_same_corpus_in_postgresql_full_text():
    summary = bench.locomo_postgres_fts([SAMPLE])
    assert summary["questions"] == 3
    assert 0.0 <= summary["recall_any@10"] <= 1.0
    assert summary["latency_ms"]["p50"] >= 0


@pytest.mark.skipif(connection.vendor == "postgresql", reason="off PostgreSQL")
def test_peers_are_skipped_off_postgresql():
    assert bench.locomo_postgres_fts([SAMPLE]) is None
