"""How a consent event append answers a retry with the same `Idempotency-Key`
(`iris_site.idempotency`): the event it wrote (or found in force), read from the
member's ledger now; an event since purged from the ledger is gone (410)."""

from consent.selectors import consent_event_list
from consent.serializers import ConsentEventOutputSerializer


def consent_event_replay(request, reference: dict, **kwargs) -> dict | None:
    event = consent_event_list(member_id=request.user.pk).filter(pk=reference.get("id")).first()
    return None if event is None else ConsentEventOutputSerializer(event).data
