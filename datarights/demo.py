"""Demo data rights: Ada asks for a copy of her profile memory (an export, verified by
her signed-in session; the worker of `make run` then builds it). The inspection demo
fulfils it on the DSAR path, so its id is handed on in `data["open_data_rights_requests"]`
(the inspection demo takes it out again). Skipped when Ada has any request already.
"""

from datarights.enums import RequestKind
from datarights.selectors import datarights_request_list
from datarights.services import datarights_request_submit
from iris_site.audit.events import Actor
from iris_site.models import User

MEMBER = "ada@iris.example"
EXPORT = {
    "scopes": ["profile"],
    "format": "json",
    "include_consents": True,
    "include_opt_outs": True,
    "include_notebooks": False,
    "include_session_memory": False,
    "delivery_channel": "download",
    "encrypted": False,
}


def seed(data: dict) -> None:
    row = next((m for m in data["members"] if m["email"] == MEMBER), None)
    if row is None or datarights_request_list(member_id=row["id"]).exists():
        return
    member = User.objects.get(pk=row["id"])
    request = datarights_request_submit(
        member=member,
        kind=RequestKind.EXPORT,
        payload=EXPORT,
        actor=Actor.of(member),
        signed_in_session=True,
    )
    data.setdefault("open_data_rights_requests", {})[row["id"]] = str(request.pk)
