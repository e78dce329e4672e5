"""`bench_recall --scale --against CHECKOUT` times another checkout's recall store beside
this one, query by query on the same data, so a before/after is one command."""

import io
import json
import sys
from unittest import mock

import pytest
from django.conf import settings
from django.core.management.base import CommandError, OutputWrapper

from iris_site.models import User
from memory.bench import recall_scale as bench
from memory.bench.recall import _store_of
from memory.recall.store import recall_resolve

pytestmark = pytest.mark.django_db


def test_no_checkout_means_no_comparison_and_a_checkout_without_a_store_is_refused(tmp_path):
    assert _store_of(None) is None
    with pytest.raises(CommandError, match=r"No recall store"):
        _store_of(str(tmp_path))


def test_a_store_package_loads_with_its_own_modules_and_a_one_file_store_still_loads(tmp_path):
    """The store is a package whose modules import one another relatively: loaded from
    a checkout, every module of it is that checkout's, under the loaded name. Older
    checkouts hold it as one file, at the package's place or at memory/recall_store.py."""
    # given this checkout's package
    against = _store_of(str(settings.BASE_DIR))
    # then its interface comes from its own modules, not this checkout's
    assert against.__name__ == "memory._recall_store_against"
    assert against.recall_resolve.__module__ == "memory._recall_store_against.plan"
    assert sys.modules["memory._recall_store_against.bounds"].__file__.startswith(
        str(settings.BASE_DIR)
    )
    assert against.recall_resolve is not recall_resolve
    # and a one-file store loads, wherever an older checkout kept it (a load replaces
    # the package loaded before, its modules with it)
    for place in ("memory/recall/store/__init__.py", "memory/recall_store.py"):
        checkout = tmp_path / place.split("/")[-2]
        (checkout / place).parent.mkdir(parents=True)
        (checkout / place).write_text(f"def recall_resolve(**kwargs):\n    return {place!r}\n")
        old = _store_of(str(checkout))
        assert old.recall_resolve() == place
        assert "memory._recall_store_against.plan" not in sys.modules


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
