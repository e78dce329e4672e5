"""Continuity's answers to other apps' signals."""

from django.dispatch import receiver

from consent.enums import BaseConsentType
from consent.signals import consent_ended
from continuity.services import continuity_cross_device_ended


@receiver(consent_ended, dispatch_uid="continuity.cross_device_ended")
def confine_sensitive_tokens(
    sender, *, member_id, consent_type: str, event_id, kind: str, **kwargs
) -> None:
    """A withdrawn or expired `cross_device` consent keeps sensitive tokens on the device
    that wrote them. The guard already holds at read time (it asks the ledger on every
    read), so this only evidences the effect on the audit chain; were it lost in a crash
    after the consent commit, nothing would be readable that should not be."""
    if consent_type != BaseConsentType.CROSS_DEVICE:
        return
    continuity_cross_device_ended(member_id=member_id, consent_event_id=event_id, kind=kind)
