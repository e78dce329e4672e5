"""The change feed over HTTP (`memory.changes`): a surface reads, oldest first, the events
written for its consumer — only about memories it was given — and acknowledges what it
has applied. Ids and times only; a member or operator token is refused (403).

Cursors are opaque and bound to the caller's consumer: `next` from one page is `after` for
the next; a cursor that is malformed or was issued to another consumer is a 400.
Acknowledging is by cursor too (`POST /api/v1/events/ack/` with the `next` of the last
page applied): every event up to it counts as applied, for the member's proof of erasure.
Acknowledging again, or an older cursor, changes nothing.
"""

from django.core import signing
from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from iris_site.api.contracts import contract
from iris_site.api.gated import content_free
from iris_site.api.schema import error_responses
from iris_site.errors import InvalidInput
from iris_site.permissions import IsServiceClient
from memory.enums import ChangeType
from memory.http.surface_contracts import ChangeFeedAck, ChangeFeedQuery
from memory.models import ChangeEvent

_SALT = "iris.memory.changes.cursor"


def cursor_for(consumer: str, last_id: int) -> str:
    return signing.dumps({"c": consumer, "i": last_id}, salt=_SALT, compress=True)


def cursor_read(raw: str | None, consumer: str, *, field: str) -> int:
    """The last event id a cursor names (0 for none); 400 when it is not this caller's."""
    if not raw:
        return 0
    try:
        value = signing.loads(raw, salt=_SALT)
    except signing.BadSignature:
        value = None
    if (
        not isinstance(value, dict)
        or value.get("c") != consumer
        or not isinstance(value.get("i"), int)
    ):
        raise InvalidInput(fields={field: ["Not a cursor this client was given."]})
    return value["i"]


class ChangeEventSerializer(serializers.Serializer):
    id = serializers.UUIDField(source="event_id", help_text="Unique: deduplicate by it.")
    type = serializers.ChoiceField(choices=ChangeType.choices)
    member_id = serializers.UUIDField()
    entry_ids = serializers.ListField(child=serializers.UUIDField())
    revision_ids = serializers.ListField(child=serializers.UUIDField())
    entity_ids = serializers.ListField(child=serializers.UUIDField())
    consent_type = serializers.CharField(
        help_text="consent.withdrawn: the consent that ended ('' otherwise)."
    )
    occurred_at = serializers.DateTimeField()


class ChangeFeedSerializer(serializers.Serializer):
    events = ChangeEventSerializer(many=True)
    next = serializers.CharField(help_text="Pass as `after` for the next page, or to ack.")


class AckSerializer(serializers.Serializer):
    acknowledged_count = serializers.IntegerField()


@content_free
class ChangeFeedApi(APIView):
    """The changes to memories this surface was given (forgotten, corrected, consent
    withdrawn, a person forgotten, the member erased), oldest first."""

    permission_classes = [IsServiceClient]

    @contract(query=ChangeFeedQuery)
    @extend_schema(
        operation_id="read_changes",
        summary="Read the change feed",
        responses={200: ChangeFeedSerializer, **error_responses(400)},
    )
    def get(self, request, query: ChangeFeedQuery):
        consumer = request.user.consumer
        after = cursor_read(query.after, consumer, field="after")
        events = list(
            ChangeEvent.objects.filter(consumer=consumer, id__gt=after).order_by("id")[
                : query.limit
            ]
        )
        last = events[-1].id if events else after
        return Response(
            {
                "events": ChangeEventSerializer(events, many=True).data,
                "next": cursor_for(consumer, last),
            }
        )


@content_free
class ChangeFeedAckApi(APIView):
    """Every event up to this cursor is applied by this surface (shown to the member as
    acknowledged). Idempotent."""

    permission_classes = [IsServiceClient]

    @contract(body=ChangeFeedAck)
    @extend_schema(
        operation_id="ack_changes",
        summary="Acknowledge the changes applied",
        responses={200: AckSerializer, **error_responses(400)},
    )
    def post(self, request, body: ChangeFeedAck):
        consumer = request.user.consumer
        upto = cursor_read(body.cursor, consumer, field="cursor")
        count = ChangeEvent.objects.filter(
            consumer=consumer, id__lte=upto, acknowledged_at__isnull=True
        ).update(acknowledged_at=timezone.now())
        return Response({"acknowledged_count": count})
