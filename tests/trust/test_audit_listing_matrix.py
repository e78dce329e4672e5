"""The access-control matrix extended to audit listings (issue 42, item 2): for each
operator role and each special category, what a listing of the audit chain reveals of
it, with no cover and under each cover.

`iris_site.audit.listing.listing_matrix` states the policy; docs/audit-listings.md holds
it as a table (`manage.py audit_listing_matrix`); this test fails when the table and the
code differ, and when the API answers otherwise than the table says, for every cell: a
member whose memory of that category was written and whose consent to it was granted,
listed by an operator of that role through `GET /api/v1/operator/audit-events/`.
"""

import re
from pathlib import Path

import pytest

from consent.enums import SensitiveCategory
from inspection.policy import SENSITIVE_PATHS
from iris_site.audit.actions import AuditAction
from iris_site.audit.events import Actor, audit_event_append
from iris_site.audit.listing import (
    NOT_LISTED,
    REFUSED,
    SHOWN,
    MatrixColumn,
    listing_matrix,
    listing_matrix_table,
    matrix_columns,
)
from iris_site.audit.sealing import MARKER
from iris_site.enums import OperatorRole
from tests.conftest import bearer_client
from tests.datarights.factories import ACCESS, submit
from tests.inspection.factories import granted
from tests.iris_site.factories import OperatorFactory
from tests.memory.factories import BASE_CONSENTS, consenting_member

pytestmark = pytest.mark.django_db

DOC = Path(__file__).resolve().parents[2] / "docs" / "audit-listings.md"
URL = "/api/v1/operator/audit-events/"
MATRIX = {(role, category): cells for role, category, cells in listing_matrix()}


def test_the_documented_matrix_is_the_codes():
    text = DOC.read_text()
    found = re.search(
        r"<!-- audit-listings:begin -->\n(.*?)<!-- audit-listings:end -->", text, re.S
    )
    assert found, "docs/audit-listings.md lost its markers"
    assert found.group(1) == listing_matrix_table(), "run: python manage.py audit_listing_matrix"


def test_the_matrix_covers_every_role_and_special_category():
    assert set(MATRIX) == {(r, c) for r in OperatorRole.values for c in SensitiveCategory.values}


def member_with(category: str):
    """A member whose memory of `category` was written and consent to it granted, as
    their writers record it (the chain seals the values)."""
    member = consenting_member(f"category:{category}")  # the ledger records the grant
    audit_event_append(
        action=AuditAction.MEMORY_ENTRY_CREATED,
        policy_id="iris.memory.write.v1",
        actor=Actor.of(member),
        target_member_id=member.pk,
        payload={"category": category, "entry_id": str(member.pk)},
    )
    return member


def observe(client, params: dict, category: str) -> str:
    """What the listing showed of the category, in the matrix's words."""
    response = client.get(URL, params)
    if response.status_code == 403:
        assert response.json()["error"]["code"] == "audit_cover_refused"
        return REFUSED
    assert response.status_code == 200, response.json()
    results = response.json()["results"]
    shown = set()
    for action, key, prefix in (
        ("memory.entry.created", "category", ""),
        ("consent.event.grant", "consent_type", "category:"),
    ):
        of_action = [e for e in results if e["action"] == action]
        if not of_action:
            shown.add(NOT_LISTED)
            continue
        if any(key not in e["payload"] for e in of_action):
            shown.add("counts only")
            continue
        events = [e for e in of_action if e["payload"][key] not in BASE_CONSENTS]
        [event] = events
        if event["payload"][key] == prefix + category:
            shown.add(SHOWN)
        else:
            assert event["payload"][key] == MARKER, event["payload"]
            shown.add(f"`{MARKER}`")
    return " / ".join(sorted(shown))


def inspection_for(column: MatrixColumn, role: str, member):
    """A granted inspection of the member of this column's kind, held by an operator of
    `role` when that role can ever hold one (legal through a DSAR fulfilment, trust &
    safety an incident, when it includes sensitive categories), else by one who can."""
    holder_role = role if role in column.roles else OperatorRole.LEGAL
    holder = OperatorFactory(role=holder_role)
    if not column.sensitive:
        return holder, granted(holder, member)
    return holder, granted(holder, member, SENSITIVE_PATHS[holder_role], include_sensitive=True)


@pytest.mark.parametrize("category", sorted(SensitiveCategory.values))
@pytest.mark.parametrize("role", OperatorRole.values)
def test_what_a_listing_reveals_is_what_the_matrix_says(role, category):
    member = member_with(category)
    operator = OperatorFactory(role=role)
    observed = []
    for column in matrix_columns():
        client = bearer_client(operator)
        if column.kind == "inspection":
            holder, inspection = inspection_for(column, role, member)
            if holder.operator_profile.role == role:
                client = bearer_client(holder)
            params = {"inspection": str(inspection.pk)}
        elif column.kind == "data-rights-request":
            params = {"data_rights_request": str(submit(member, "access", ACCESS).pk)}
        else:
            params = {"target_member_id": str(member.pk)}
        observed.append(observe(client, params, category))
    assert observed == MATRIX[(role, category)], [c.label for c in matrix_columns()]
