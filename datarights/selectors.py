"""Reads of data-rights requests. Other apps ask here, never the models."""

from datetime import datetime, timedelta

from django.db.models import Q, QuerySet

from datarights.enums import RequestKind, RequestStatus
from datarights.models import DataRightsRequest, DataRightsTrailEntry, VerificationCode
from datarights.policy import TrailRow
from memory.changes import ERASURE_TYPES, member_notifications

# An in-progress job that has not moved for this long is taken to have crashed.
STALLED_AFTER = timedelta(minutes=15)


def datarights_request_list(*, member_id) -> QuerySet[DataRightsRequest]:
    return DataRightsRequest.objects.filter(member_id=member_id)


def datarights_request_get(*, member_id, request_id) -> DataRightsRequest | None:
    """One request of this member, or None: another member's is simply not found."""
    return DataRightsRequest.objects.filter(member_id=member_id, pk=request_id).first()


# Identity verified and not finished (an appeal reopens it): what an inspection on the
# DSAR-fulfilment path may name. An unverified request authorises nobody to look.
FULFILLABLE_STATUSES = (RequestStatus.VERIFIED, RequestStatus.IN_PROGRESS, RequestStatus.APPEALED)


def datarights_request_is_open(*, member_id, request_id) -> bool:
    """Whether this is a verified, unfinished request of this member."""
    return DataRightsRequest.objects.filter(
        member_id=member_id, pk=request_id, status__in=FULFILLABLE_STATUSES
    ).exists()


def datarights_queue(*, tenant_id=None) -> QuerySet[DataRightsRequest]:
    """The operators' work queue, soonest deadline first; a tenant-bound operator sees
    only requests of their tenant's members."""
    requests = DataRightsRequest.objects.all()
    if tenant_id is not None:
        requests = requests.filter(member__tenant_memberships__tenant_id=tenant_id).distinct()
    return requests.order_by("due_at", "id")


def datarights_queue_get(*, tenant_id=None, request_id) -> DataRightsRequest | None:
    return datarights_queue(tenant_id=tenant_id).filter(pk=request_id).first()


def datarights_trail(*, request: DataRightsRequest) -> QuerySet[DataRightsTrailEntry]:
    return DataRightsTrailEntry.objects.filter(
        member_id=request.member_id, request=request
    ).order_by("sequence")


def datarights_trail_rows(*, request: DataRightsRequest) -> list[TrailRow]:
    return [TrailRow(r.event, r.status, r.at) for r in datarights_trail(request=request)]


def datarights_active_code(*, request: DataRightsRequest) -> VerificationCode | None:
    return VerificationCode.objects.filter(
        request=request, state=VerificationCode.State.ACTIVE
    ).first()


def datarights_unverified_due(*, now: datetime) -> QuerySet[DataRightsRequest]:
    return DataRightsRequest.objects.filter(status=RequestStatus.SUBMITTED, verify_by__lte=now)


def datarights_grace_due(*, now: datetime) -> QuerySet[DataRightsRequest]:
    return DataRightsRequest.objects.filter(
        status=RequestStatus.IN_PROGRESS, grace_ends_at__lte=now
    )


def datarights_downloads_due(*, now: datetime) -> QuerySet[DataRightsRequest]:
    return DataRightsRequest.objects.filter(
        download_expires_at__lte=now, artifact_removed_at__isnull=True
    ).exclude(artifact_name="")


def datarights_stalled(*, now: datetime) -> QuerySet[DataRightsRequest]:
    """Verified or in-progress work whose job stopped moving (not a soft delete that is
    waiting out its grace window)."""
    return DataRightsRequest.objects.filter(
        Q(status=RequestStatus.VERIFIED)
        | Q(status=RequestStatus.IN_PROGRESS, grace_ends_at__isnull=True)
        | Q(status=RequestStatus.IN_PROGRESS, grace_ends_at__lte=now),
        updated_at__lte=now - STALLED_AFTER,
    )


def datarights_member_artifacts(*, member_id) -> QuerySet[DataRightsRequest]:
    """The member's export requests whose file may still be on disk."""
    return DataRightsRequest.objects.filter(
        member_id=member_id, artifact_removed_at__isnull=True
    ).exclude(artifact_name="")


def datarights_notified(*, request: DataRightsRequest) -> list[dict] | None:
    """A delete's proof of notification: the surfaces its erasure told (the change events
    written between the markers its processing kept), when, and whether they have
    acknowledged — read now, so an acknowledgement after completion shows. None for
    another kind of request, or a delete whose erasure has not begun."""
    after = request.progress.get("changes_after")
    if request.kind != RequestKind.DELETE or after is None:
        return None
    return member_notifications(
        member_id=request.member_id,
        after=after,
        upto=request.progress.get("changes_upto"),
        types=ERASURE_TYPES,
    )
