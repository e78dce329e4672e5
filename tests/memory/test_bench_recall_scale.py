"""`bench_recall --scale --against CHECKOUT` times another checkout's recall store beside
this one, query by query on the same data, so a before/after is one command."""

import io
import json
from unittest import mock

import pytest
from django.conf import settings
from django.core.management.base import CommandError, OutputWrapper

from iris_site.models import User
from memory.bench import recall_scale as bench
from memory.bench.recall import _store_of

pytestmark = pytest.mark.django_db


def test_no_checkout_means_no_comparison_and_a_checkout_without_a_store_is_refused(tmp_path):
    assert _store_of(None) is None
    with pytest.raises(CommandError, match=r"No recall store"):
        _store_of(str(tmp_path))


def test_against_times_the_other_store_in_the_same_rounds_and_compares_its_ids():
    # given this checkout as the one to compare against (the same code: the same ids)
    options = {
        "seed": 7,
        "queries": 4,
        "warmup": 1,
        "rounds": 2,
        "reference_timed": 2,
        "against_store": _store_of(str(settings.BASE_DIR)),
    }
    # when one size is measured (VACUUM cannot run inside the test's transaction)
    with (
        mock.patch.object(bench, "vacuum_analyze"),
        mock.patch.object(
            options["against_store"],
            "recall_resolve",
            wraps=options["against_store"].recall_resolve,
        ) as against,
    ):
        out = OutputWrapper(io.StringIO())
        run = bench.size_measure(bench.size_create(40, options, out=out), options)
    # then the other store answered every query of every round and of the warm-up, its
    # figures beside this code's, with the same ids as this code and the reference
    assert against.call_count == options["warmup"] + options["queries"] * options["rounds"]
    assert run["identical_to_against"] is True
    assert run["identical_ids"] is True
    assert run["in_process_against"]["p50"] > 0
    assert run["in_process"]["p50"] > 0


def test_every_size_is_timed_again_in_the_same_rounds_for_the_ratio():
    """Timed one size after the other, the machine's drift between sizes moves their
    ratio; the summary's ratio comes from a pass where the sizes alternate query by
    query (both stores with --against), and every member is deleted afterwards."""
    # given two sizes and this checkout as the one to compare against
    options = {
        "scale": [20, 40],
        "seed": 7,
        "queries": 3,
        "warmup": 1,
        "rounds": 2,
        "reference_timed": 1,
        "against_store": _store_of(str(settings.BASE_DIR)),
    }
    out = OutputWrapper(io.StringIO())
    # when
    with mock.patch.object(bench, "vacuum_analyze"):
        bench.scale_run(options, out=out)
    # then the summary's ratio is the interleaved pass's, for both stores
    summary = json.loads(out.getvalue().strip().splitlines()[-1])
    interleaved = summary["interleaved"]
    assert set(interleaved) == {"this", "against"}
    assert set(interleaved["this"]) == {"20", "40"}
    this = interleaved["this"]
    assert summary["ratio_p50_40_over_20"] == round(this["40"]["p50"] / this["20"]["p50"], 2)
    assert "ratio_p50_40_over_20_against" in summary
    assert not User.objects.filter(email__endswith="@bench.invalid").exists()
