"""Questions one app answers for its siblings, registered at start-up.

`inspection` must know whether a member has an open data-rights request, but it sits
beside `datarights` in the layer order and may not import it. The answer is registered
here, in the foundation, by `DatarightsConfig.ready()`; with nothing registered the
answer is "no", so an unwired deployment fails closed.
"""

import uuid
from collections.abc import Callable

OpenRequestLookup = Callable[..., bool]

_open_data_rights_request: OpenRequestLookup | None = None


def open_data_rights_request_register(lookup: OpenRequestLookup) -> None:
    """`lookup(member_id=..., request_id=...)` is True for an open request of that member."""
    global _open_data_rights_request
    _open_data_rights_request = lookup


def open_data_rights_request_exists(*, member_id: uuid.UUID, request_id: uuid.UUID | None) -> bool:
    if request_id is None or _open_data_rights_request is None:
        return False
    return _open_data_rights_request(member_id=member_id, request_id=request_id)
