"""`bench_recall --long-query` prints what a long query costs against a one-word one."""

import io
import json
from unittest import mock

import pytest
from django.core.management.base import OutputWrapper

from memory.bench import recall_long as bench
from memory.recall import MAX_QUERY_TERMS, query_terms

pytestmark = pytest.mark.django_db


def test_the_long_query_holds_more_stems_than_the_cut():
    assert len(query_terms(bench.long_query(400, seed=7))) > MAX_QUERY_TERMS


def test_the_bench_times_both_queries_and_prints_their_ratio():
    # given a small member (VACUUM cannot run inside the test's transaction)
    out = OutputWrapper(io.StringIO())
    options = {"long_entries": 60, "long_words": 400, "rounds": 1, "seed": 7}
    # when
    with mock.patch.object(bench, "vacuum_analyze"):
        summary = bench.long_query_run(options, out=out)
    # then both queries were timed and the summary is the last line
    printed = out._out.getvalue().strip().splitlines()
    assert json.loads(printed[-1]) == summary
    assert summary["long"]["words"] == 400 and summary["one_word"]["words"] == 1
    assert summary["long"]["distinct_stems"] > MAX_QUERY_TERMS
    assert summary["ratio_store"] > 0 and summary["ratio_recall_run"] > 0
