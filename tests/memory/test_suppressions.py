"""The suppression table (pure: no database): who may put which suppression reason on
an entry (`memory.access.suppressions`)."""

import uuid
from pathlib import Path

import pytest
from django.conf import settings
from hypothesis import given
from hypothesis import strategies as st

from iris_site.audit.enums import ActorType
from memory.access.suppressions import (
    SUPPRESSION_NOT_ALLOWED,
    evaluate_suppression,
    suppression_table_markdown,
)
from memory.enums import SuppressionReason

TENANT, OTHER = str(uuid.UUID(int=1)), str(uuid.UUID(int=2))


@pytest.mark.parametrize("reason", SuppressionReason.values)
def test_a_surface_writes_no_suppression_at_all(reason):
    for tenant in (None, TENANT):
        decision = evaluate_suppression(
            writer=ActorType.SERVICE, reason=reason, writer_tenant_id=tenant, entry_tenant_id=tenant
        )
        assert (decision.allowed, decision.code, decision.status) == (
            False,
            SUPPRESSION_NOT_ALLOWED,
            403,
        )


def test_only_the_member_pauses():
    assert evaluate_suppression(writer=ActorType.MEMBER, reason="user-pause").allowed
    for writer in (ActorType.SERVICE, ActorType.OPERATOR, ActorType.SYSTEM):
        assert not evaluate_suppression(writer=writer, reason="user-pause").allowed


def test_only_an_operator_of_that_tenant_quarantines_that_tenants_memory():
    def quarantine(writer=ActorType.OPERATOR, mine=TENANT, entry=TENANT):
        return evaluate_suppression(
            writer=writer,
            reason="tenant-quarantine",
            writer_tenant_id=mine,
            entry_tenant_id=entry,
        ).allowed

    assert quarantine()
    assert not quarantine(entry=OTHER)  # another tenant's memory
    assert not quarantine(entry=None)  # a member's consumer memory
    assert not quarantine(mine=None)  # a platform operator bound to no tenant
    for writer in (ActorType.MEMBER, ActorType.SERVICE, ActorType.SYSTEM):
        assert not quarantine(writer=writer)


def test_the_crisis_frame_and_the_sensitive_hold_are_iriss_own():
    for reason in ("crisis-frame", "sensitive-category"):
        assert evaluate_suppression(writer=ActorType.SYSTEM, reason=reason).allowed
        for writer in (ActorType.MEMBER, ActorType.SERVICE, ActorType.OPERATOR):
            assert not evaluate_suppression(
                writer=writer, reason=reason, writer_tenant_id=TENANT, entry_tenant_id=TENANT
            ).allowed


@given(
    writer=st.sampled_from([*ActorType.values, "someone-else"]),
    reason=st.sampled_from([*SuppressionReason.values, "", "USER-PAUSE", "made-up"]),
    mine=st.sampled_from([None, TENANT, OTHER]),
    entry=st.sampled_from([None, TENANT, OTHER]),
)
def test_what_is_allowed_is_exactly_the_table(writer, reason, mine, entry):
    decision = evaluate_suppression(
        writer=writer, reason=reason, writer_tenant_id=mine, entry_tenant_id=entry
    )
    expected = (
        (writer == ActorType.MEMBER and reason == "user-pause")
        or (
            writer == ActorType.OPERATOR
            and reason == "tenant-quarantine"
            and mine is not None
            and mine == entry
        )
        or (writer == ActorType.SYSTEM and reason in ("crisis-frame", "sensitive-category"))
    )
    assert decision.allowed == expected
    if not expected:
        assert (decision.code, decision.status) == (SUPPRESSION_NOT_ALLOWED, 403)


def test_the_design_doc_carries_the_table():
    design = Path(settings.BASE_DIR, "docs", "design.md").read_text()
    assert suppression_table_markdown() in design
