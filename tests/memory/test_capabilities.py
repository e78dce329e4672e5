"""The capability table, as pure data: who may claim which surface, context and kind;
narrowing only takes away; docs/design.md prints the same table."""

from pathlib import Path

import pytest
from django.conf import settings
from hypothesis import given
from hypothesis import strategies as st

from iris_site.enums import Consumer
from iris_site.errors import NotPermitted
from memory.access.capabilities import (
    ADMIN_SURFACE,
    CONSUMER_GRANTS,
    capabilities_for,
    capability_table_markdown,
)
from memory.enums import RecallContext, ScopeKind
from memory.policy.scopes import consumer_may_use_kind
from memory.recall.pipeline import BUDGETS, budget_for

TABLE_HEADER = "| consumer | surfaces (budgets) | contexts | scope kinds (read, write) | why |"


def test_every_consumer_has_a_row_with_a_reason():
    assert set(CONSUMER_GRANTS) == set(Consumer.values)
    assert all(grant.reason.strip() for grant in CONSUMER_GRANTS.values())


@pytest.mark.parametrize("consumer", Consumer.values)
def test_no_consumer_may_claim_the_admin_budget(consumer):
    capabilities = capabilities_for(consumer)
    assert ADMIN_SURFACE not in capabilities.surfaces
    with pytest.raises(NotPermitted) as refused:
        capabilities.require_surface(ADMIN_SURFACE)
    assert refused.value.code == "surface-not-allowed"
    # and even a (hypothetical) row naming it would not let it through
    widened = capabilities.narrowed()
    object.__setattr__(widened, "surfaces", widened.surfaces | {ADMIN_SURFACE})
    with pytest.raises(NotPermitted):
        widened.require_surface(ADMIN_SURFACE)


@pytest.mark.parametrize("consumer", Consumer.values)
def test_each_row_is_within_the_budgets_the_contexts_and_the_blueprints(consumer):
    capabilities = capabilities_for(consumer)
    # budgets, or the surface's own name (which gets the shell's budget)
    assert capabilities.surfaces <= set(BUDGETS) | {consumer}
    for surface in capabilities.surfaces - set(BUDGETS):
        assert budget_for(surface) == budget_for("shell")
    assert RecallContext.GENERAL in capabilities.contexts <= set(RecallContext.values)
    # the kinds are the blueprints' allow-lists, never restated
    assert capabilities.read_kinds == {
        kind for kind in ScopeKind.values if consumer_may_use_kind(consumer, kind)
    }
    assert capabilities.write_kinds == capabilities.read_kinds
    assert ScopeKind.OPERATOR_COPILOT not in capabilities.read_kinds


def test_only_the_notebook_may_use_the_notebook_budget_and_only_named_surfaces_health():
    assert [c for c in Consumer.values if "notebook" in capabilities_for(c).surfaces] == [
        Consumer.NOTEBOOK
    ]
    # the seed's guarantee: health memory surfaces in Tara recovery, never in a briefing
    assert RecallContext.HEALTH in capabilities_for(Consumer.TARA).contexts
    assert RecallContext.HEALTH not in capabilities_for(Consumer.VERITAS).contexts


def test_an_unknown_consumer_may_claim_nothing():
    nothing = capabilities_for("toaster")
    assert not (nothing.surfaces or nothing.contexts or nothing.read_kinds or nothing.write_kinds)
    for check, value in (
        (nothing.require_surface, "shell"),
        (nothing.require_context, RecallContext.GENERAL),
        (nothing.require_read_kind, ScopeKind.PROFILE),
        (nothing.require_write_kind, ScopeKind.PROFILE),
    ):
        with pytest.raises(NotPermitted):
            check(value)


@pytest.mark.parametrize(
    ("check", "value", "code"),
    [
        ("require_surface", "notebook", "surface-not-allowed"),
        ("require_context", RecallContext.HEALTH, "context-not-allowed"),
        ("require_read_kind", ScopeKind.POSE, "consumer-not-allowed-for-scope"),
        ("require_write_kind", ScopeKind.TENANT, "consumer-not-allowed-for-scope"),
    ],
)
def test_a_claim_outside_the_row_is_refused_with_a_stable_code(check, value, code):
    with pytest.raises(NotPermitted) as refused:
        getattr(capabilities_for(Consumer.VERITAS), check)(value)
    assert refused.value.code == code
    assert refused.value.status_code == 403


ANY_SURFACE = st.sampled_from([*BUDGETS, "watch-face"])
ANY_CONTEXT = st.sampled_from(RecallContext.values)
ANY_KIND = st.sampled_from(ScopeKind.values)


@given(
    consumer=st.sampled_from(Consumer.values),
    surfaces=st.none() | st.frozensets(ANY_SURFACE),
    contexts=st.none() | st.frozensets(ANY_CONTEXT),
    read_kinds=st.none() | st.frozensets(ANY_KIND),
    write_kinds=st.none() | st.frozensets(ANY_KIND),
    again=st.none() | st.frozensets(ANY_CONTEXT),
)
def test_narrowing_never_widens(consumer, surfaces, contexts, read_kinds, write_kinds, again):
    table = capabilities_for(consumer)
    narrowed = table.narrowed(
        surfaces=surfaces, contexts=contexts, read_kinds=read_kinds, write_kinds=write_kinds
    )
    for dimension, given_values in (
        ("surfaces", surfaces),
        ("contexts", contexts),
        ("read_kinds", read_kinds),
        ("write_kinds", write_kinds),
    ):
        kept = getattr(narrowed, dimension)
        assert kept <= getattr(table, dimension)
        if given_values is not None and dimension != "contexts":
            assert kept <= given_values
    # the general context always stays: a recall always has one
    assert RecallContext.GENERAL in narrowed.contexts
    # narrowing twice narrows further, never back
    assert narrowed.narrowed(contexts=again).contexts <= narrowed.contexts


def _design_notes_table() -> str | None:
    notes = Path(settings.BASE_DIR) / "docs" / "design.md"
    lines = notes.read_text(encoding="utf-8").splitlines()
    if TABLE_HEADER not in lines:
        return None
    start = lines.index(TABLE_HEADER)
    end = start
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    return "\n".join(lines[start:end])


def test_the_design_notes_print_the_table_the_code_holds():
    table = _design_notes_table()
    assert table is not None, "docs/design.md has no capability table"
    assert table == capability_table_markdown()
