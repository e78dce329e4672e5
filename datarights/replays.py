"""How a data-rights submission answers a retry with the same `Idempotency-Key`
(`iris_site.idempotency`): the receipt of the request it made, as it is now."""

from datarights.selectors import datarights_request_get
from datarights.serializers import ReceiptSerializer


def datarights_submit_replay(request, reference: dict, **kwargs) -> dict | None:
    made = datarights_request_get(member_id=request.user.pk, request_id=reference.get("id"))
    return None if made is None else ReceiptSerializer(made).data
