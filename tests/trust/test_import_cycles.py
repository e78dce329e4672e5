"""No import cycles between the modules of the project, function-level imports included.

`lint-imports` (pyproject.toml) checks the order of the apps and of memory's own layers;
this test catches what a layers contract cannot see: two modules of one app (or of one
layer) importing each other, directly or round a longer loop. A cycle held open by an
import inside a function still counts: grimp records those too.
"""

from pathlib import Path

import grimp
import pytest
from django.apps import apps
from django.conf import settings

APPS = [
    "iris_site",
    "consent",
    "memory",
    "continuity",
    "inspection",
    "datarights",
    "hierarchy",
    "console",
    "interfaces",
    "webhooks",
]


def cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    modules = sorted(graph.modules)
    edges = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in modules:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
            targets = edges.get(node, [])
            if i < len(targets):
                work.append((node, i + 1))
                target = targets[i]
                if target not in index:
                    work.append((target, 0))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            for target in targets:
                if target in on_stack:
                    low[node] = min(low[node], low[target])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph(*APPS, cache_dir=None)


def test_every_app_is_in_the_graph():
    # a new app must be added here, or its cycles go unseen
    root = Path(settings.BASE_DIR).resolve()
    ours = {c.name for c in apps.get_app_configs() if Path(c.path).resolve().parent == root}
    assert ours and ours <= set(APPS), ours


def test_no_module_imports_itself_round_a_loop(graph):
    assert cycles(graph) == []


def test_the_check_sees_a_cycle_through_a_function_level_import():
    # given two modules that import each other, one of them inside a function
    graph = grimp.ImportGraph()
    for module in ("app", "app.services", "app.erasure", "app.policy"):
        graph.add_module(module)
    graph.add_import(importer="app.services", imported="app.erasure")
    graph.add_import(importer="app.erasure", imported="app.services")
    graph.add_import(importer="app.services", imported="app.policy")

    # then the pair is reported, and nothing else
    assert cycles(graph) == [["app.erasure", "app.services"]]
