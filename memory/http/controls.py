"""The member's controls over HTTP (`/api/v1/me/…`): how Iris uses my memory (stop using,
forget automatically after…, pause a surface), and forgetting several memories at once.
"""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from iris_site.api.gated import content_free
from iris_site.api.schema import error_responses
from iris_site.api.serializers import StrictInputSerializer
from iris_site.audit.events import Actor
from iris_site.enums import Consumer
from iris_site.permissions import IsMember
from iris_site.stepup import require_api_step_up, step_up_responses
from memory.controls import auto_forget_shortens, member_memory_settings_get
from memory.forgetting.selected import MAX_SELECTED, memory_forget_selected
from memory.sweeps.auto_forget import member_memory_settings_set

# --- the member's controls: how Iris uses my memory, forget several at once ---------------


class MemorySettingsSerializer(serializers.Serializer):
    """How Iris may use my memory. `auto_forget_months` maps each of my scope kinds to 3,
    12 or 18 months, or null for never; `paused_consumers` are the surfaces that neither
    read nor write my memory until I resume them."""

    stop_using = serializers.BooleanField()
    auto_forget_months = serializers.DictField(
        child=serializers.IntegerField(allow_null=True), allow_empty=True
    )
    paused_consumers = serializers.ListField(
        child=serializers.ChoiceField(choices=Consumer.choices), allow_empty=True
    )


class MemorySettingsInputSerializer(StrictInputSerializer):
    stop_using = serializers.BooleanField()
    auto_forget_months = serializers.DictField(
        child=serializers.IntegerField(allow_null=True), allow_empty=True
    )
    paused_consumers = serializers.ListField(
        child=serializers.ChoiceField(choices=Consumer.choices), allow_empty=True, max_length=50
    )

    def to_internal_value(self, data):
        # Strict: a boolean is not a number of months, "true" is not a boolean.
        if isinstance(data, dict):
            if "stop_using" in data and not isinstance(data["stop_using"], bool):
                raise serializers.ValidationError({"stop_using": ["Give true or false."]})
            months = data.get("auto_forget_months")
            if isinstance(months, dict) and any(
                isinstance(v, bool) or not (v is None or isinstance(v, int))
                for v in months.values()
            ):
                raise serializers.ValidationError(
                    {"auto_forget_months": ["Give 3, 12 or 18 months, or null for never."]}
                )
        return super().to_internal_value(data)


@content_free
class MemorySettingsApi(APIView):
    """How Iris uses my memory. *Stop using my memories*: no surface recalls any of it
    (the recall envelope counts it under `member-stopped-use`); writes still follow my
    consents. *Forget automatically after…*: my memories of a scope older than 3, 12 or
    18 months are not used from that instant (`member-auto-forget`) and the retention
    sweep erases them within the hour (it can only shorten retention). *Pause a
    surface*: that surface reads nothing of mine (`surface-paused`) and its writes are
    refused with 422 `surface-paused`, until I resume it. PUT replaces all three; while
    a full clear of my memory waits, settings are put aside and a PUT answers 409
    `clear-pending`, nothing changed."""

    permission_classes = [IsMember]

    @extend_schema(
        summary="How Iris uses my memory now",
        responses={200: MemorySettingsSerializer, **error_responses()},
    )
    def get(self, request):
        return Response(member_memory_settings_get(member_id=request.user.pk).as_dict())

    @extend_schema(
        summary="Change how Iris uses my memory",
        request=MemorySettingsInputSerializer,
        responses={200: MemorySettingsSerializer, **step_up_responses(400, 409)},
    )
    def put(self, request):
        serializer = MemorySettingsInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        before = member_memory_settings_get(member_id=request.user.pk)
        if auto_forget_shortens(before, data["auto_forget_months"]):
            require_api_step_up(request)  # what is already older is forgotten at once
        updated = member_memory_settings_set(
            member=request.user,
            actor=Actor.of(request.user),
            stop_using=data["stop_using"],
            auto_forget_months=data["auto_forget_months"],
            paused_consumers=data["paused_consumers"],
        )
        return Response(updated.as_dict())


class MemoryForgetSelectedResultSerializer(serializers.Serializer):
    forgotten_ids = serializers.ListField(child=serializers.UUIDField())
    forgotten_count = serializers.IntegerField()
    by_category = serializers.DictField(child=serializers.IntegerField())


@content_free
class MemoryForgetSelectedApi(APIView):
    """Forget several of my memories at once, all or none: each is forgotten as one
    memory is (its text erased everywhere now). An id that is not one of my listed
    memories answers 404 for the whole request, and nothing is forgotten."""

    class MemoryForgetSelectedInputSerializer(StrictInputSerializer):
        ids = serializers.ListField(
            child=serializers.UUIDField(), allow_empty=False, max_length=MAX_SELECTED
        )

    permission_classes = [IsMember]

    @extend_schema(
        operation_id="v1_me_memories_forget_selected",
        request=MemoryForgetSelectedInputSerializer,
        responses={200: MemoryForgetSelectedResultSerializer, **step_up_responses(400, 404, 409)},
    )
    def post(self, request):
        require_api_step_up(request)
        serializer = self.MemoryForgetSelectedInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        result = memory_forget_selected(
            member=request.user,
            entry_ids=serializer.validated_data["ids"],
            actor=Actor.of(request.user),
        )
        return Response(
            {
                "forgotten_ids": list(result.entry_ids),
                "forgotten_count": result.count,
                "by_category": result.by_category,
            }
        )
