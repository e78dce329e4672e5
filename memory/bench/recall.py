"""``bench_recall``: evidence recall on LoCoMo, and latency at scale.

``--locomo [PATH]``: LoCoMo (Maharana et al., "Evaluating Very Long-Term
Conversational Memory of LLM Agents", ACL 2024; CC BY-NC 4.0), read from
``../shared/benchmarks/locomo/`` where it lies, never copied. The product's figure:
each conversation written through the services a surface calls (turns appended, one
memory per turn quoting it, consent in the ledger; `locomo_ingest`) and every question
recalled by a service client through the recall service (`locomo_recall`), all rolled
back. Beside it, the previous figures: candidates the benchmark builds itself through
the pure pipeline (``memory.bench.locomo``). ``--peers``: the same corpus in
PostgreSQL full-text search, recall and latency side by side.

``--long-query``: a one-word and a 400-word query on a 2,500-entry synthetic member,
what the long one costs against the one word (`memory.bench.recall_long`).

``--scale N [N ...]``: one synthetic member with N entries on the configured database
(PostgreSQL for the real figures), recall latency in-process and over HTTP, peak
memory, and the production path against the straightforward reference (every entry of
the member through the pure pipeline), which must return the same ranked ids; the
index's size (`pg_total_relation_size` of its tables) and what the write path spends
keeping it current per new entry.

The benchmarks write to the configured database: on PostgreSQL only one named for it
(``*bench*``, ``*scratch*``).

Each part prints human-readable lines, then one JSON object on its last line.

The harness: `memory.bench.recall_locomo` (LoCoMo through the product, its peers),
`memory.bench.recall_scale` (latency at scale), over `memory.bench.synthetic` (the
synthetic member), `memory.bench.queries` and `memory.bench.harness` (timing, the
loopback server, clean-up). The command (`memory.management.commands.bench_recall`)
only declares the options.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from django.conf import settings
from django.core.management.base import CommandError, OutputWrapper

from memory.bench.harness import require_scratch_database
from memory.bench.recall_locomo import locomo_report
from memory.bench.recall_long import long_query_run
from memory.bench.recall_scale import scale_run

DEFAULT_LOCOMO = Path(settings.BASE_DIR).parent / "shared/benchmarks/locomo/locomo_dev.json"


def _store_of(checkout: str | None):
    """Another checkout's `memory.recall.store`, loaded beside this one (the rest of the
    code is this checkout's: a comparison of the store alone), or None.

    The store is a package, memory/recall/store/, whose modules import one another
    relatively: it is loaded as a package under one name, its modules under that name
    too, so they are the other checkout's. Older checkouts have it as one module, at the
    package's place (memory/recall/store/__init__.py alone) or at memory/recall_store.py;
    those load the same way."""
    if checkout is None:
        return None
    package = Path(checkout) / "memory" / "recall" / "store"
    name = "memory._recall_store_against"
    if (package / "__init__.py").is_file():
        spec = importlib.util.spec_from_file_location(
            name, package / "__init__.py", submodule_search_locations=[str(package)]
        )
    elif (Path(checkout) / "memory" / "recall_store.py").is_file():
        spec = importlib.util.spec_from_file_location(
            name, Path(checkout) / "memory" / "recall_store.py"
        )
    else:
        raise CommandError(
            f"No recall store (memory/recall/store/ or recall_store.py) in {checkout}"
        )
    # A store loaded before (another checkout's, or this one's again) goes, its modules
    # with it: a relative import would otherwise find the earlier ones.
    for loaded in [m for m in sys.modules if m == name or m.startswith(f"{name}.")]:
        del sys.modules[loaded]
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # its dataclasses and its modules look it up by name
    spec.loader.exec_module(module)
    return module


def bench_recall_run(options: dict, *, out: OutputWrapper) -> None:
    """`manage.py bench_recall` with its parsed ``options``: LoCoMo unless only
    --scale is asked, then the scale run (see the module's docstring)."""
    require_scratch_database()
    long_query = options.get("long_query", False)
    if options["locomo"] is None and (options["peers"] or not (options["scale"] or long_query)):
        options["locomo"] = str(DEFAULT_LOCOMO)
    if options["locomo"] is not None:
        locomo_report(Path(options["locomo"]), peers=options["peers"], out=out)
    if options["scale"]:
        if any(n < 1 for n in options["scale"]):
            raise CommandError("--scale sizes must be positive")
        if options["rounds"] < 1:
            raise CommandError("--rounds must be positive")
        options["against_store"] = _store_of(options.get("against"))
        scale_run(options, out=out)
    if long_query:
        long_query_run(options, out=out)
