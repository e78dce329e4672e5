"""The cover a granted inspection gives an audit listing (`iris_site.audit.sealing`).

An operator listing the audit chain with `inspection=<id>` sees that member's events;
their special-category values show only when the inspection includes sensitive
categories. The cover holds on the same terms as reading the snapshot: the operator the
inspection was granted to, while granted and inside its time box, with the role and
tenant binding it was opened under.
"""

from django.utils import timezone

from inspection import policy
from inspection.models import InspectionRequest
from inspection.policy import SENSITIVE_PATHS
from iris_site.audit.sealing import Cover
from iris_site.enums import OperatorRole

KIND = "inspection"
# Support never reads special categories (ARCHITECTURE.md): its listings are never covered.
ROLES = frozenset({OperatorRole.ADMIN, OperatorRole.TRUST_AND_SAFETY, OperatorRole.LEGAL})
VARIANTS = (
    # Only the roles with a path to sensitive memory ever hold such a grant (legal on a
    # DSAR fulfilment, trust & safety on an incident: `inspection.policy.SENSITIVE_PATHS`).
    ("granted inspection, sensitive included", True, ROLES & set(SENSITIVE_PATHS)),
    ("granted inspection, sensitive not included", False, ROLES),
)


def inspection_cover(*, operator, cover_id) -> Cover | None:
    inspection = InspectionRequest.objects.filter(pk=cover_id, operator_id=operator.pk).first()
    if inspection is None or not policy.is_readable(inspection.state):
        return None
    if inspection.expires_at is not None and timezone.now() >= inspection.expires_at:
        return None
    profile = getattr(operator, "operator_profile", None)
    if profile is None or (profile.role, profile.tenant_id) != (
        inspection.operator_role,
        inspection.operator_tenant_id,
    ):
        return None
    return Cover(
        kind=KIND,
        cover_id=inspection.pk,
        member_id=inspection.member_id,
        sensitive=inspection.include_sensitive,
    )
