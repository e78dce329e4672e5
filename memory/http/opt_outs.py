"""The member's kinds of memory over HTTP (`/api/v1/me/opt-outs/`): the opt-out ledger
(`consent.models.OptOutEvent`) read and changed. Changes go through
`memory.services.member_opt_out_set`, as the page's do: while a full clear waits, the
switches are put aside (409 `clear-pending`)."""

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from consent.apis import witness_for
from consent.enums import OptOutCategory, OptOutEventKind
from consent.models import OptOutEvent
from consent.selectors import opt_out_event_list, opt_out_latest
from iris_site.api.gated import content_free
from iris_site.api.schema import error_responses
from iris_site.audit.events import Actor
from iris_site.permissions import IsMember
from memory.services import member_opt_out_set

MAX_OPT_OUT_HISTORY = 200


class StrictBooleanField(serializers.BooleanField):
    """A JSON `true` or `false`, nothing that merely looks like one ("yes", 1, "on")."""

    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


class OptOutEventOutputSerializer(serializers.ModelSerializer):
    class Meta:
        model = OptOutEvent
        fields = ["id", "sequence", "category", "kind", "actor_id", "witness", "occurred_at"]


class OptOutStateOutputSerializer(serializers.Serializer):
    category = serializers.ChoiceField(choices=OptOutCategory.choices)
    label = serializers.CharField(help_text="The category's name as the member page shows it.")
    opted_out = serializers.BooleanField(help_text="True: the member turned this category off.")
    event_id = serializers.UUIDField(
        allow_null=True, help_text="The event in force; null when never turned off."
    )
    changed_at = serializers.DateTimeField(allow_null=True)


def opt_out_state(category: str, event: OptOutEvent | None) -> dict:
    return {
        "category": category,
        "label": OptOutCategory(category).label,
        "opted_out": event is not None and event.kind == OptOutEventKind.OPT_OUT,
        "event_id": event.id if event else None,
        "changed_at": event.occurred_at if event else None,
    }


@content_free
class OptOutListCreateApi(APIView):
    """GET: the member's opt-outs now (every category, on or off) and the ledger's
    history, newest first. POST: turn one category off (`opted_out: true`) or back on.

    An opted-out category suppresses every memory scope that lists it
    (`GET /api/v1/me/scope-policies/`): surfaces' writes there are refused with 422
    `scope-suppressed`, and recall withholds what is stored there. Repeating the current
    state is a 200 that writes nothing; a change is a 201. While a full clear of my
    memory waits, the switches are put aside: a POST answers 409 `clear-pending`, nothing
    recorded.
    """

    class OptOutInputSerializer(serializers.Serializer):
        category = serializers.ChoiceField(choices=OptOutCategory.choices)
        opted_out = StrictBooleanField(
            help_text="true: turn the category off; false: turn it back on."
        )

        def validate(self, attrs):
            unknown = sorted(set(self.initial_data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError({name: ["Unknown field."] for name in unknown})
            return attrs

    permission_classes = [IsMember]

    @extend_schema(
        summary="My opt-outs now and their history",
        responses={
            200: inline_serializer(
                "OptOutLedger",
                {
                    "opted_out": serializers.ListField(
                        child=serializers.ChoiceField(choices=OptOutCategory.choices),
                        help_text="The categories turned off right now.",
                    ),
                    "categories": OptOutStateOutputSerializer(many=True),
                    "history": OptOutEventOutputSerializer(many=True),
                    "history_count": serializers.IntegerField(
                        help_text=f"Events in the ledger; `history` holds the newest "
                        f"{MAX_OPT_OUT_HISTORY}."
                    ),
                },
            ),
            **error_responses(),
        },
    )
    def get(self, request):
        latest = opt_out_latest(member_id=request.user.pk)
        states = [opt_out_state(c, latest.get(c)) for c in OptOutCategory.values]
        events = opt_out_event_list(member_id=request.user.pk)
        return Response(
            {
                "opted_out": [s["category"] for s in states if s["opted_out"]],
                "categories": OptOutStateOutputSerializer(states, many=True).data,
                "history": OptOutEventOutputSerializer(
                    events.order_by("-sequence")[:MAX_OPT_OUT_HISTORY], many=True
                ).data,
                "history_count": events.count(),
            }
        )

    @extend_schema(
        summary="Turn a kind of memory off or back on",
        request=OptOutInputSerializer,
        responses={
            201: OptOutStateOutputSerializer,
            200: OptOutStateOutputSerializer,
            **error_responses(400, 409, 413),
        },
    )
    def post(self, request):
        serializer = self.OptOutInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        result = member_opt_out_set(
            member=request.user,
            witness=witness_for(request),
            actor=Actor.of(request.user),
            **serializer.validated_data,
        )
        return Response(
            OptOutStateOutputSerializer(opt_out_state(result.category, result.event)).data,
            status=status.HTTP_201_CREATED if result.created else status.HTTP_200_OK,
        )
