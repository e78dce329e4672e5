"""The cover an open data-rights request gives an audit listing (`iris_site.audit.sealing`).

Legal and admin operators handle the data-rights queue (`console.datarights`); while a
request is open (verified, in progress or appealed), listing the audit chain with
`data_rights_request=<id>` shows that member's events with their special-category
values: answering the member's request may need them. A tenant-bound operator reaches
only requests of their tenant's members, as in the queue.
"""

from datarights.selectors import FULFILLABLE_STATUSES, datarights_queue
from iris_site.audit.sealing import Cover
from iris_site.enums import OperatorRole

KIND = "data-rights-request"
HANDLERS = frozenset({OperatorRole.LEGAL, OperatorRole.ADMIN})
VARIANTS = (("open data-rights request", True, HANDLERS),)


def data_rights_cover(*, operator, cover_id) -> Cover | None:
    profile = operator.operator_profile
    request = (
        datarights_queue(tenant_id=profile.tenant_id)
        .filter(pk=cover_id, status__in=FULFILLABLE_STATUSES)
        .first()
    )
    if request is None:
        return None
    return Cover(kind=KIND, cover_id=request.pk, member_id=request.member_id, sensitive=True)
