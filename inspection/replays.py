"""How opening an inspection answers a retry with the same `Idempotency-Key`
(`iris_site.idempotency`): the request it opened, as this operator may see it now."""

from inspection.selectors import inspection_list
from inspection.serializers import InspectionOutputSerializer, inspection_data


def inspection_open_member(request, data, kwargs):
    """Whose memory the request is about."""
    return data.get("target_user_id") if isinstance(data, dict) else None


def inspection_open_replay(request, reference: dict, **kwargs) -> dict | None:
    opened = inspection_list(operator=request.user).filter(pk=reference.get("id")).first()
    return None if opened is None else InspectionOutputSerializer(inspection_data(opened)).data
