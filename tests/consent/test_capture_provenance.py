"""Consent provenance: a member records only their own kind of capture (a prompt, a
settings toggle, the API) on the basis of consent; `operator-recorded`, `dsar-import`
and the other Art. 6 bases come only from the operator and data-rights paths.

Pure rules first (with a property over every principal, method and basis), then the
service every door appends through, then the member's forged variants over real HTTP.
"""

from datetime import timedelta

import pytest
from django.utils import timezone
from hypothesis import given
from hypothesis import strategies as st

from consent.enums import CaptureMethod, LegalBasis
from consent.models import ConsentEvent
from consent.policy import (
    PROVENANCE_REFUSAL_CODE,
    PROVENANCE_RULES,
    PrincipalKind,
    provenance_refusal,
)
from consent.selectors import consent_active
from consent.services import consent_event_append, consent_expire_due
from iris_site.audit.enums import ActorType
from iris_site.audit.events import Actor
from iris_site.errors import NotPermitted
from iris_site.models import AuditEvent
from iris_site.services import token_issue
from tests.conftest import http_request
from tests.iris_site.factories import MemberFactory, OperatorFactory

EVENTS = "/api/v1/me/consents/events/"
MEMBER_METHODS = {"inline-prompt", "settings-toggle", "api"}
FORGED = [
    {"capture_method": "operator-recorded"},
    {"capture_method": "dsar-import"},
    {"legal_basis": "vital_interests"},
]

principal_kinds = st.sampled_from([*ActorType.values, "unknown", ""])
capture_methods = st.sampled_from(CaptureMethod.values)
legal_bases = st.sampled_from(LegalBasis.values)


# --- pure -------------------------------------------------------------------------------------


def test_the_rules_name_every_principal_kind_and_only_known_values():
    assert set(PROVENANCE_RULES) == set(ActorType.values)
    for rule in PROVENANCE_RULES.values():
        assert rule.capture_methods <= set(CaptureMethod.values)
        assert rule.legal_bases <= set(LegalBasis.values)


def test_a_member_records_their_own_capture_on_the_basis_of_consent_only():
    member = PROVENANCE_RULES[PrincipalKind.MEMBER]
    assert member.capture_methods == MEMBER_METHODS
    assert member.legal_bases == {"consent"}
    assert PROVENANCE_RULES[PrincipalKind.OPERATOR].capture_methods == {"operator-recorded"}
    assert PROVENANCE_RULES[PrincipalKind.SERVICE].capture_methods == frozenset()


@pytest.mark.parametrize("forged", FORGED)
def test_the_member_s_forged_variants_are_refused_by_the_policy(forged):
    values = {"capture_method": "settings-toggle", "legal_basis": "consent", **forged}
    fields = provenance_refusal("member", **values)
    assert set(fields) == set(forged)


@given(kind=principal_kinds, method=capture_methods, basis=legal_bases)
def test_property_allowed_exactly_when_the_rule_holds_both(kind, method, basis):
    fields = provenance_refusal(kind, capture_method=method, legal_basis=basis)
    rule = PROVENANCE_RULES.get(kind)
    allowed = rule is not None and method in rule.capture_methods and basis in rule.legal_bases
    assert (not fields) == allowed
    # Each refused part is named on its own field, and only refused parts are named.
    assert ("capture_method" in fields) == (rule is None or method not in rule.capture_methods)
    assert ("legal_basis" in fields) == (rule is None or basis not in rule.legal_bases)
    if kind == PrincipalKind.MEMBER and not fields:
        assert basis == LegalBasis.CONSENT and method in MEMBER_METHODS
    if kind in (PrincipalKind.MEMBER, PrincipalKind.SERVICE):
        # Nothing the member did not do themselves passes as theirs.
        assert method not in (CaptureMethod.OPERATOR_RECORDED, CaptureMethod.DSAR_IMPORT) or fields


# --- the service (every door) -----------------------------------------------------------------


def append(member, actor, **fields):
    return consent_event_append(
        member=member,
        consent_type=fields.pop("consent_type", "category:medical"),
        kind=fields.pop("kind", "grant"),
        legal_basis=fields.pop("legal_basis", "consent"),
        capture_method=fields.pop("capture_method", "settings-toggle"),
        terms_version="2026-11",
        witness=fields.pop("witness", "session"),
        actor=actor,
        **fields,
    )


@pytest.mark.django_db
@pytest.mark.parametrize("forged", FORGED)
def test_the_service_refuses_a_member_s_forged_provenance_and_stores_nothing(forged):
    member = MemberFactory()
    before = AuditEvent.objects.count()
    with pytest.raises(NotPermitted) as refused:
        append(member, Actor.of(member), **forged)
    assert refused.value.code == PROVENANCE_REFUSAL_CODE
    assert set(refused.value.fields) == set(forged)
    assert not ConsentEvent.objects.filter(member=member).exists()
    assert AuditEvent.objects.count() == before


@pytest.mark.django_db
def test_the_operator_path_records_operator_recorded_on_its_justifying_basis():
    member, operator = MemberFactory(), OperatorFactory(role="support")
    result = append(
        member,
        Actor.of(operator),
        consent_type="data_processing",
        capture_method="operator-recorded",
        legal_basis="vital_interests",
        witness="operator",
    )
    assert result.created
    assert (result.event.capture_method, result.event.legal_basis) == (
        "operator-recorded",
        "vital_interests",
    )
    # An operator records what they recorded, never a member's own toggle.
    with pytest.raises(NotPermitted) as refused:
        append(member, Actor.of(operator), consent_type="cross_device")
    assert set(refused.value.fields) == {"capture_method"}


@pytest.mark.django_db
def test_the_data_rights_import_and_the_expiry_job_record_as_the_system():
    member = MemberFactory()
    imported = append(
        member,
        Actor.system("datarights"),
        capture_method="dsar-import",
        legal_basis="legal_obligation",
        witness="system:dsar-import",
    )
    assert imported.created and imported.event.capture_method == "dsar-import"
    assert consent_active(member_id=member.pk).allows("category:medical")
    # The expiry job restates an operator-recorded grant's provenance as the system.
    now = timezone.now()
    append(
        member,
        Actor.of(OperatorFactory(role="support")),
        consent_type="data_processing",
        capture_method="operator-recorded",
        legal_basis="contract",
        valid_until=now + timedelta(hours=1),
    )
    assert consent_expire_due(now=now + timedelta(hours=2)) == 1
    expiry = ConsentEvent.objects.get(member=member, kind="expiry")
    assert (expiry.capture_method, expiry.legal_basis) == ("operator-recorded", "contract")


@pytest.mark.django_db
def test_a_service_client_records_no_consent_itself():
    member = MemberFactory()
    with pytest.raises(NotPermitted) as refused:
        append(member, Actor(ActorType.SERVICE, None, "assistant"))
    assert set(refused.value.fields) == {"capture_method", "legal_basis"}
    assert not ConsentEvent.objects.filter(member=member).exists()


# --- over real HTTP ---------------------------------------------------------------------------


def grant_body(**overrides) -> dict:
    return {
        "consent_type": "category:medical",
        "kind": "grant",
        "legal_basis": "consent",
        "capture_method": "settings-toggle",
        "terms_version": "2026-11",
        **overrides,
    }


@pytest.mark.django_db(transaction=True)
def test_over_http_the_member_s_three_forged_grants_are_refused_and_nothing_is_stored(
    live_server,
):
    member = MemberFactory()
    _, token = token_issue(owner=member)
    url = live_server.url + EVENTS
    for forged in FORGED:
        response = http_request(url, method="POST", token=token, body=grant_body(**forged))
        assert response.status == 403, response.body
        error = response.body["error"]
        assert error["code"] == PROVENANCE_REFUSAL_CODE
        assert set(error["fields"]) == set(forged)
    assert not ConsentEvent.objects.filter(member=member).exists()
    assert not AuditEvent.objects.filter(
        target_member_id=member.pk, action__startswith="consent.event."
    ).exists()
    assert http_request(url, token=token).body["results"] == []
    # The member's own toggle, prompt and API captures still go through.
    for index, method in enumerate(sorted(MEMBER_METHODS)):
        consent_type = ["category:medical", "category:legal", "cross_device"][index]
        response = http_request(
            url,
            method="POST",
            token=token,
            body=grant_body(consent_type=consent_type, capture_method=method),
        )
        assert response.status == 201, response.body
        assert response.body["capture_method"] == method
    assert ConsentEvent.objects.filter(member=member).count() == 3
