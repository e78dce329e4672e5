"""Demo consents: every demo member agrees to processing and storage; Ada also to
medical and mental-health memory, so the sensitive paths have something to show."""

from consent.enums import CaptureMethod, ConsentEventKind, LegalBasis
from consent.services import consent_event_append
from consent.terms import CURRENT_TERMS_VERSION
from iris_site.audit.events import Actor
from iris_site.models import User

BASELINE = ["data_processing", "data_storage", "cross_device"]
EXTRA = {"ada@iris.example": ["sensitive_data", "category:medical", "category:mental_health"]}


def seed(data: dict) -> None:
    for row in data["members"]:
        member = User.objects.get(pk=row["id"])
        for consent_type in BASELINE + EXTRA.get(row["email"], []):
            consent_event_append(
                member=member,
                consent_type=consent_type,
                kind=ConsentEventKind.GRANT,
                legal_basis=LegalBasis.CONSENT,
                capture_method=CaptureMethod.SETTINGS_TOGGLE,
                terms_version=CURRENT_TERMS_VERSION,
                witness="system:seed-demo",
                actor=Actor.system("seed-demo"),
            )  # a repeated grant is a no-op, so re-running stays idempotent
