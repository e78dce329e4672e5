"""Memory's answers to other apps' signals."""

from django.dispatch import receiver

from consent.signals import consent_ended
from memory.services import memory_consent_cascade


@receiver(consent_ended, dispatch_uid="memory.consent_cascade")
def forget_on_consent_ended(sender, *, member_id, consent_type: str, **kwargs) -> None:
    """A withdrawn or expired `category:<c>` consent forgets that category's memory and the
    summaries derived from it; other consent types are not memory's to act on here.

    The signal is sent after the consent transaction commits; should this cascade be lost
    (a crash in between), the retention sweep's consent reconciliation catches up.
    """
    memory_consent_cascade(member_id=member_id, consent_type=consent_type)
