"""The memory HTTP API: the member's own memory (`/api/v1/me/…`) and the surfaces'
remember and conversation-turn endpoints (`/api/v1/members/{member_id}/…`).

Views are thin: they parse, call one selector or service, and shape the answer. Entries
always leave as the seed's contract (`entry_contract`); write bodies are validated by
the pydantic contracts, whose errors the exception handler turns into 400 envelopes.
"""

import re

import pydantic
from django.db.models import Exists, OuterRef, Q
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from iris_site.api.gated import MEMBER_OWN, content_free, content_view
from iris_site.api.pagination import CursorPagination
from iris_site.api.schema import error_responses
from iris_site.api.serializers import StrictInputSerializer
from iris_site.audit.events import Actor
from iris_site.errors import InvalidInput, NotFound
from iris_site.idempotency import Scope, idempotent
from iris_site.permissions import IsMember
from iris_site.stepup import require_api_step_up, step_up_responses
from memory.access.disclosures import registered_disclosure_sources
from memory.access.gate import ContentKind
from memory.contracts import (
    MAX_BODY_LENGTH,
    MAX_SUBJECT_LENGTH,
    Body,
    Identifier,
    MemoryScopeKey,
    MemoryWriteRequest,
    Subject,
)
from memory.entities.services import person_forget
from memory.enums import MemoryCategory, Origin, ScopeKind
from memory.filters import MemoryEntryFilter
from memory.forgetting.services import (
    memory_clear_cancel,
    memory_clear_request,
    memory_forget_category,
    memory_tombstone,
)
from memory.http.replays import (
    member_remember_replay,
    remember_reference,
)
from memory.http.serializers import (
    MemoryClearRequestSerializer,
    MemoryClearStateSerializer,
    MemoryCreateInputSerializer,
    MemoryEditPreviewSerializer,
    MemoryEntryDetailSerializer,
    MemoryEntrySerializer,
    MemoryForgetResultSerializer,
    MemoryKeptExistingSerializer,
    MemoryNoticeSerializer,
    MemoryRevisionSerializer,
    MemoryScopeSerializer,
    OffTheRecordStateSerializer,
)
from memory.models import MemoryEntry, MemoryNotice, MemoryRevision
from memory.pauses import memory_pause, memory_resume
from memory.policy.handles import ACTOR_HANDLE_PATTERN
from memory.promotions import PromotionAnswer, memory_promotion_answer
from memory.reconfirm import ReconfirmAnswer, memory_reconfirm_answer
from memory.selectors import (
    REVISION_TRAIL,
    ConsentLedgerView,
    consent_ledger_view,
    ensure_no_pending_clear,
    entry_contract,
    memory_entries_shown,
    memory_entry_get,
    memory_entry_list,
    memory_notice_list,
    memory_off_the_record,
    memory_pending_clear,
    memory_recall_list,
    memory_revision_list,
)
from memory.services import (
    RememberResult,
    memory_change_scope,
    memory_confirm,
    memory_edit,
    memory_edit_preview,
    memory_notice_answer,
    memory_off_the_record_set,
    memory_remember,
)

RECENT_RECALLS = 10
# What a member may set on a memory they state; the origin is always theirs.
MEMBER_WRITE_FIELDS = frozenset({"scope", "category", "subject", "body", "multi_actor"})
# Operator-copilot memory is written by operators, crisis memory by the crisis cascade:
# a member stating a fact there would forge the other side's notes.
MEMBER_WRITABLE_KINDS = frozenset(ScopeKind.values) - {ScopeKind.OPERATOR_COPILOT, ScopeKind.CRISIS}

_BODY = pydantic.TypeAdapter(Body)
_SUBJECT = pydantic.TypeAdapter(Subject)
_IDENTIFIER = pydantic.TypeAdapter(Identifier)


# --- Helpers ---------------------------------------------------------------------------


def entry_output(entry: MemoryEntry, *, consents: ConsentLedgerView | None = None) -> dict:
    """The wire shape of an entry: exactly the seed's contract (`consents`: the member's
    ledger read once for a page of entries)."""
    return entry_contract(entry, consents=consents).model_dump(mode="json")


def _own_entry(request, pk) -> MemoryEntry:
    entry = memory_entry_get(member_id=request.user.pk, entry_id=pk)
    if entry is None:
        # Hidden while a full clear waits: 409 `clear-pending` says why; else not found.
        ensure_no_pending_clear(member_id=request.user.pk)
        raise NotFound()
    return entry


def json_object(request) -> dict:
    if not isinstance(request.data, dict):
        raise InvalidInput("The request body must be a JSON object.")
    return dict(request.data)


def _contract_value(adapter: pydantic.TypeAdapter, value):
    """Check one value against the contract's own type, so both paths share one rule."""
    try:
        return adapter.validate_python(value)
    except pydantic.ValidationError as exc:
        raise serializers.ValidationError(
            [error["msg"] for error in exc.errors(include_input=False, include_url=False)]
        ) from exc


def session_id_of(value: str | None, field: str = "session_id") -> str:
    if not value:
        return ""
    try:
        return _IDENTIFIER.validate_python(value)
    except pydantic.ValidationError as exc:
        raise InvalidInput(
            fields={field: [e["msg"] for e in exc.errors(include_input=False, include_url=False)]}
        ) from exc


PROMOTION_HEADER = "Iris-Promotion"
STORED_AS_HEADER = "Iris-Stored-As"


def remember_response(result: RememberResult, *, echo_kept: bool = True) -> Response:
    """`echo_kept` False: the kept entry is withheld from this writer (`entry` is null)."""
    if result.created:
        response = Response(entry_output(result.entry), status=status.HTTP_201_CREATED)
    else:
        response = Response(
            {
                "outcome": result.outcome,
                "conflict_rule": result.conflict_rule,
                "entry": entry_output(result.entry) if echo_kept else None,
                "notice_id": str(result.notice.pk) if result.notice else None,
            },
            status=status.HTTP_200_OK,
        )
        # For the idempotency reference only (ids, never content): what was kept.
        response.kept_entry = {"id": result.entry.pk, "revision_id": result.entry.revision_id}
    if result.promotion is not None:
        # The session → profile rule's reason, and where the write went because of it.
        response[PROMOTION_HEADER] = str(result.promotion)
        response[STORED_AS_HEADER] = str(result.stored_as)
    return response


REMEMBER_RESPONSES = {
    201: MemoryEntrySerializer,
    200: MemoryKeptExistingSerializer,
}


# --- The member's memory -----------------------------------------------------------------


@content_view(reads=[ContentKind.ENTRY], through=MEMBER_OWN)
class MemoryListCreateApi(generics.ListAPIView):
    """GET: my memories, most recently changed first (forgotten ones excluded).
    POST: state a memory myself (origin `user-stated`, scope `user_id` is mine).

    A POST goes through the same consent-checked write path as a surface's remember:
    off-the-record, scope policy, the privacy storage gate and the conflict ladder.
    """

    class Pagination(CursorPagination):
        ordering = ("-updated_at", "-id")

    permission_classes = [IsMember]
    serializer_class = MemoryEntrySerializer
    pagination_class = Pagination
    filterset_class = MemoryEntryFilter

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return MemoryEntry.objects.none()
        return memory_entry_list(member_id=self.request.user.pk).prefetch_related(REVISION_TRAIL)

    def list(self, request, *args, **kwargs):
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        # The consent ledger once for the page, only when an entry carries a record.
        consents = None
        if any(entry.consent for entry in page):
            consents = consent_ledger_view(member_id=request.user.pk)
        return self.get_paginated_response(
            [entry_output(entry, consents=consents) for entry in page]
        )

    @extend_schema(
        summary="My memories, most recently changed first",
        responses={200: MemoryEntrySerializer(many=True), **error_responses(400)},
    )
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    @idempotent(Scope.MEMORY_REMEMBER, replay=member_remember_replay, reference=remember_reference)
    @extend_schema(
        summary="State a memory myself",
        request=MemoryCreateInputSerializer,
        responses={**REMEMBER_RESPONSES, **error_responses(400, 409, 413, 422)},
    )
    def post(self, request):
        data = json_object(request)
        unknown = sorted(data.keys() - MEMBER_WRITE_FIELDS - {"origin"})
        fields = {name: ["Members cannot set this field."] for name in unknown}
        if data.get("origin", Origin.USER_STATED) != Origin.USER_STATED:
            fields["origin"] = ["A memory you state yourself is always user-stated."]
        if fields:
            raise InvalidInput(fields=fields)
        write = MemoryWriteRequest.model_validate(
            {**data, "origin": Origin.USER_STATED}, context={"user_id": request.user.pk}
        )
        if write.scope.kind not in MEMBER_WRITABLE_KINDS:
            raise InvalidInput(
                fields={"scope.kind": [f"Members cannot write {write.scope.kind} memory."]}
            )
        result = memory_remember(member=request.user, write=write, actor=Actor.of(request.user))
        return remember_response(result)


class MemoryEditInputSerializer(StrictInputSerializer):
    body = serializers.CharField(required=False, max_length=MAX_BODY_LENGTH, trim_whitespace=False)
    subject = serializers.CharField(
        required=False,
        allow_null=True,
        max_length=MAX_SUBJECT_LENGTH,
        trim_whitespace=False,
        help_text="null clears the subject.",
    )
    category = serializers.ChoiceField(required=False, choices=MemoryCategory.choices)
    revision_id = serializers.UUIDField(
        required=False,
        help_text="The revision being edited (the entry's `revision_id` as read): when it is "
        "no longer the head, 409 `not-head` names the current one.",
    )

    def validate_body(self, value):
        return _contract_value(_BODY, value)

    def validate_subject(self, value):
        return None if value is None else _contract_value(_SUBJECT, value)

    def validate(self, attrs):
        attrs = super().validate(attrs)
        if not attrs.keys() - {"revision_id"}:
            raise serializers.ValidationError("Give at least one of body, subject and category.")
        return attrs


def _edit_arguments(request) -> dict:
    serializer = MemoryEditInputSerializer(data=request.data)
    serializer.is_valid(raise_exception=True)
    data = dict(serializer.validated_data)
    if "subject" in data and data["subject"] is None:
        data["subject"] = ""  # the model keeps "no subject" as an empty string
    return data


def _open_notices_about(member_id, entry):
    """The member's open questions about ``entry`` (an entry or a reference to one)."""
    return (
        memory_notice_list(member_id=member_id)
        .filter(state=MemoryNotice.State.OPEN)
        .filter(Q(entry=entry) | Q(proposed_entry=entry))
    )


@content_view(reads=[ContentKind.ENTRY], through=MEMBER_OWN)
class MemoryDetailApi(APIView):
    """GET: one of my memories with its provenance, suppression, recent recalls and any
    open question about it. PATCH: restate it (a new revision; my word supersedes what
    shares its new conflict key). Only the current version is edited: a superseded or
    draft memory, or a stale `revision_id`, is 409 `not-head` naming the current one."""

    permission_classes = [IsMember]

    @extend_schema(
        summary="One of my memories, with its provenance and recalls",
        responses={200: MemoryEntryDetailSerializer, **error_responses(404)},
    )
    def get(self, request, pk):
        member_id = request.user.pk
        # Whether a question about it is open is read with the entry: the question
        # itself only when there is one.
        entry = (
            memory_entries_shown(member_id=member_id)
            .filter(pk=pk)
            .annotate(questioned=Exists(_open_notices_about(member_id, OuterRef("pk"))))
            .prefetch_related(REVISION_TRAIL)
            .first()
        )
        if entry is None:
            ensure_no_pending_clear(member_id=member_id)  # hidden while a clear waits
            raise NotFound()
        recalls = memory_recall_list(member_id=member_id, entry_id=entry.pk).order_by(
            "-created_at"
        )[:RECENT_RECALLS]
        notice = None
        if entry.questioned:
            notice = _open_notices_about(member_id, entry).select_related("proposed_entry").first()
        return Response(
            {
                **entry_output(entry),
                "recent_recalls": [
                    {
                        "surface": record.surface,
                        "at": serializers.DateTimeField().to_representation(record.created_at),
                        "rationale": record.rationales.get(str(entry.pk)),
                    }
                    for record in recalls
                ],
                "pending_notice": MemoryNoticeSerializer(notice).data if notice else None,
            }
        )

    @extend_schema(
        summary="Restate one of my memories",
        request=MemoryEditInputSerializer,
        responses={200: MemoryEntrySerializer, **error_responses(400, 404, 409, 413, 422)},
    )
    def patch(self, request, pk):
        entry = _own_entry(request, pk)
        entry = memory_edit(entry=entry, actor=Actor.of(request.user), **_edit_arguments(request))
        return Response(entry_output(entry))


@content_view(reads=[ContentKind.ENTRY], through=MEMBER_OWN)
class MemoryEditPreviewApi(APIView):
    """What saving this edit would do, without saving: the entries it would supersede
    and whether the storage gate would refuse it."""

    permission_classes = [IsMember]

    @extend_schema(
        request=MemoryEditInputSerializer,
        responses={200: MemoryEditPreviewSerializer, **error_responses(400, 404, 409, 413)},
    )
    def post(self, request, pk):
        entry = _own_entry(request, pk)
        edit = _edit_arguments(request)
        preview = memory_edit_preview(
            entry=entry,
            category=edit.get("category", entry.category),
            subject=edit.get("subject", entry.subject),
            revision_id=edit.get("revision_id"),
        )
        return Response(
            {
                "conflicting_entry_ids": [str(pk) for pk in preview.conflicting_entry_ids],
                "storage_refusal": preview.storage_refusal,
            }
        )


@content_view(reads=[ContentKind.ENTRY], through=MEMBER_OWN)
class MemoryRevisionListApi(generics.ListAPIView):
    """The revision chain of one of my memories, oldest first."""

    class Pagination(CursorPagination):
        ordering = "number"

    permission_classes = [IsMember]
    serializer_class = MemoryRevisionSerializer
    pagination_class = Pagination

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return MemoryRevision.objects.none()
        entry = _own_entry(self.request, self.kwargs["pk"])
        return memory_revision_list(member_id=self.request.user.pk, entry_id=entry.pk)

    @extend_schema(
        responses={200: MemoryRevisionSerializer(many=True), **error_responses(400, 404)}
    )
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)


@content_view(reads=[ContentKind.ENTRY], through=MEMBER_OWN)
class MemoryForgetApi(APIView):
    """Forget one memory: it is tombstoned for good (the history stays mine to see)."""

    permission_classes = [IsMember]

    @extend_schema(
        request=None, responses={200: MemoryEntrySerializer, **step_up_responses(404, 409)}
    )
    def post(self, request, pk):
        require_api_step_up(request)
        entry = memory_tombstone(entry=_own_entry(request, pk), actor=Actor.of(request.user))
        return Response(entry_output(entry))


@content_view(reads=[ContentKind.ENTRY], through=MEMBER_OWN)
class MemoryPauseApi(APIView):
    """Pause a memory: kept, never recalled, until I resume it (or `ends_at`)."""

    class MemoryPauseInputSerializer(StrictInputSerializer):
        ends_at = serializers.DateTimeField(required=False, allow_null=True, default=None)

    permission_classes = [IsMember]

    @extend_schema(
        request=MemoryPauseInputSerializer,
        responses={200: MemoryEntrySerializer, **error_responses(400, 404, 409)},
    )
    def post(self, request, pk):
        entry = _own_entry(request, pk)
        serializer = self.MemoryPauseInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        entry = memory_pause(
            entry=entry, actor=Actor.of(request.user), ends_at=serializer.validated_data["ends_at"]
        )
        return Response(entry_output(entry))


@content_view(reads=[ContentKind.ENTRY], through=MEMBER_OWN)
class MemoryResumeApi(APIView):
    """Resume a paused memory: recall may use it again."""

    permission_classes = [IsMember]

    @extend_schema(
        request=None, responses={200: MemoryEntrySerializer, **error_responses(404, 409)}
    )
    def post(self, request, pk):
        entry = memory_resume(entry=_own_entry(request, pk), actor=Actor.of(request.user))
        return Response(entry_output(entry))


@content_view(reads=[ContentKind.ENTRY], through=MEMBER_OWN)
class MemoryConfirmApi(APIView):
    """Confirm an inference: it becomes `user-confirmed` (and active, if it was a draft)."""

    permission_classes = [IsMember]

    @extend_schema(
        request=None, responses={200: MemoryEntrySerializer, **error_responses(404, 409)}
    )
    def post(self, request, pk):
        entry = memory_confirm(entry=_own_entry(request, pk), actor=Actor.of(request.user))
        return Response(entry_output(entry))


class _ScopeChange(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")

    scope: MemoryScopeKey


@content_view(reads=[ContentKind.ENTRY], through=MEMBER_OWN)
class MemoryScopeChangeApi(APIView):
    """Move a memory to another scope within the per-scope rules (session → profile,
    session → notebook, profile → notebook). A refusal is a 422 whose `code` says why,
    e.g. `tenant-memory-stays-in-tenant`."""

    class MemoryScopeChangeInputSerializer(serializers.Serializer):
        scope = MemoryScopeSerializer()

    permission_classes = [IsMember]

    @extend_schema(
        summary="Move a memory to another scope",
        request=MemoryScopeChangeInputSerializer,
        responses={200: MemoryEntrySerializer, **error_responses(400, 404, 409, 422)},
    )
    def post(self, request, pk):
        entry = _own_entry(request, pk)
        data = json_object(request)
        scope = data.get("scope")
        if isinstance(scope, dict) and "user_id" not in scope:
            data["scope"] = {**scope, "user_id": str(request.user.pk)}
        change = _ScopeChange.model_validate(data)
        if change.scope.user_id != request.user.pk:
            raise InvalidInput(fields={"scope.user_id": ["A scope names its own member."]})
        entry = memory_change_scope(entry=entry, scope=change.scope, actor=Actor.of(request.user))
        return Response(entry_output(entry))


@content_free
class MemoryForgetCategoryApi(APIView):
    """Forget every memory of one category (and summaries made from them)."""

    class MemoryForgetCategoryInputSerializer(StrictInputSerializer):
        category = serializers.ChoiceField(choices=MemoryCategory.choices)

    permission_classes = [IsMember]

    @extend_schema(
        request=MemoryForgetCategoryInputSerializer,
        responses={200: MemoryForgetResultSerializer, **step_up_responses(400)},
    )
    def post(self, request):
        require_api_step_up(request)
        serializer = self.MemoryForgetCategoryInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        ids = memory_forget_category(
            member=request.user,
            category=serializer.validated_data["category"],
            actor=Actor.of(request.user),
        )
        return Response({"tombstoned_ids": [str(i) for i in ids], "tombstoned_count": len(ids)})


@content_free
class MemoryClearApi(APIView):
    """Full clear. GET: is one pending? POST: request it; everything is purged once the
    grace window (`purge_after`) has passed. DELETE: cancel it within the window."""

    permission_classes = [IsMember]

    @extend_schema(
        summary="Whether a full clear is pending",
        responses={200: MemoryClearStateSerializer, **error_responses()},
    )
    def get(self, request):
        pending = memory_pending_clear(member_id=request.user.pk)
        return Response(
            {"pending": MemoryClearRequestSerializer(pending).data if pending else None}
        )

    @extend_schema(
        summary="Clear all my memory after a grace window",
        request=None,
        responses={201: MemoryClearRequestSerializer, **step_up_responses(409)},
    )
    def post(self, request):
        require_api_step_up(request)
        clear = memory_clear_request(member=request.user, actor=Actor.of(request.user))
        return Response(MemoryClearRequestSerializer(clear).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Cancel a pending full clear",
        responses={200: MemoryClearRequestSerializer, **error_responses(409)},
    )
    def delete(self, request):
        clear = memory_clear_cancel(member=request.user, actor=Actor.of(request.user))
        return Response(MemoryClearRequestSerializer(clear).data)


@content_free
class MemoryForgetActorApi(APIView):
    """Forget every mention of one person: each entry tagged with the handle is
    tombstoned. Forgetting a handle nothing mentions is a no-op, not an error."""

    permission_classes = [IsMember]

    @extend_schema(
        request=None, responses={200: MemoryForgetResultSerializer, **step_up_responses(400, 404)}
    )
    def post(self, request, actor_handle):
        require_api_step_up(request)
        if not re.fullmatch(ACTOR_HANDLE_PATTERN, actor_handle):
            raise InvalidInput(fields={"actor_handle": ["Not an actor handle."]})
        ids = person_forget(
            member=request.user, actor_handle=actor_handle, actor=Actor.of(request.user)
        )
        return Response({"tombstoned_ids": [str(i) for i in ids], "tombstoned_count": len(ids)})


@content_free
class OffTheRecordApi(APIView):
    """Off the record: while active, nothing is remembered, and writes answer 422 `paused`.

    Without `session_id` the switch covers every session; with one, only that session.
    GET reports whether remembering is paused now (for that session, if given). While a
    full clear of my memory waits, the switch is put aside: 409 `clear-pending`.
    """

    class OffTheRecordInputSerializer(StrictInputSerializer):
        active = serializers.BooleanField()
        session_id = serializers.CharField(
            required=False, allow_null=True, default=None, trim_whitespace=False
        )

    permission_classes = [IsMember]

    @extend_schema(
        summary="Whether remembering is off the record now",
        parameters=[
            OpenApiParameter("session_id", OpenApiTypes.STR, OpenApiParameter.QUERY, required=False)
        ],
        responses={200: OffTheRecordStateSerializer, **error_responses(400, 409)},
    )
    def get(self, request):
        session_id = session_id_of(request.query_params.get("session_id"))
        return Response(self._state(request, session_id))

    @extend_schema(
        summary="Go off the record, or back on",
        request=OffTheRecordInputSerializer,
        responses={200: OffTheRecordStateSerializer, **error_responses(400)},
    )
    def put(self, request):
        serializer = self.OffTheRecordInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        session_id = session_id_of(serializer.validated_data["session_id"])
        memory_off_the_record_set(
            member=request.user,
            active=serializer.validated_data["active"],
            actor=Actor.of(request.user),
            session_id=session_id,
        )
        return Response(self._state(request, session_id))

    @staticmethod
    def _state(request, session_id: str) -> dict:
        return {
            "active": memory_off_the_record(member_id=request.user.pk, session_id=session_id),
            "session_id": session_id or None,
        }


@content_view(reads=[ContentKind.ENTRY], through=MEMBER_OWN)
class MemoryNoticeListApi(generics.ListAPIView):
    """Questions about my memory, newest first: "you mentioned X earlier — should I
    update?" with the proposal that would replace it (kind `conflict-question`), and "Is
    this still true?" about an old, low-confidence inference (kind `reconfirm`: answer
    `confirm` or `forget`, or edit the memory through its edit endpoint).

    Beside the paginated `results`, each registered disclosure source adds its own
    list (`memory.access.disclosures`): `inspection_notices` holds the newest 50 notices that an
    operator looked at my memory (kind `inspection`, `sensitive` true for the delivered
    notice of a sensitive inspection, false for a closed ordinary one; the same shape as
    `GET /api/v1/me/inspection-notices/`, which pages through all of them)."""

    class Pagination(CursorPagination):
        """The notices' cursor pages, plus each disclosure source's own list."""

        ordering = "-created_at"

        def get_paginated_response_schema(self, schema):
            paginated = super().get_paginated_response_schema(schema)
            paginated["properties"]["inspection_notices"] = {
                "type": "array",
                "items": {"type": "object", "additionalProperties": True},
                "description": "Inspection notices, newest first (kind `inspection`, "
                "`sensitive`, `summary`, `operator_role`, `path`, `entry_ids`, "
                "`granted_at`, `closed_at`, …): see /api/v1/me/inspection-notices/.",
            }
            paginated["required"] = [*paginated.get("required", []), "inspection_notices"]
            return paginated

    permission_classes = [IsMember]
    serializer_class = MemoryNoticeSerializer
    pagination_class = Pagination

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return MemoryNotice.objects.none()
        return memory_notice_list(member_id=self.request.user.pk).select_related("proposed_entry")

    def list(self, request, *args, **kwargs):
        response = super().list(request, *args, **kwargs)
        for source in registered_disclosure_sources():
            response.data[f"{source.name}_notices"] = source.notices(member_id=request.user.pk)
        return response

    @extend_schema(responses={200: MemoryNoticeSerializer(many=True), **error_responses(400)})
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)


@content_view(reads=[ContentKind.ENTRY], through=MEMBER_OWN)
class MemoryNoticeAnswerApi(APIView):
    """Answer a question. A `conflict-question` takes `accept`: true takes the proposal
    (the old memory is superseded), false drops it. A `reconfirm` ("Is this still true?")
    takes `answer`: `confirm` makes it your confirmed word (its confidence rises and its
    freshness starts afresh), `forget` forgets it everywhere. A `promotion` (Iris put a
    memory into "About you" on its own) takes `answer`: `keep` leaves it there as your
    confirmed word, `forget` forgets it everywhere. A question is answered once (409
    after); every answer is on the audit record (ids and the choice, never the words)."""

    class MemoryNoticeAnswerInputSerializer(StrictInputSerializer):
        accept = serializers.BooleanField(required=False)
        answer = serializers.ChoiceField(
            choices=sorted({*ReconfirmAnswer.CHOICES, *PromotionAnswer.CHOICES}), required=False
        )

    permission_classes = [IsMember]

    @extend_schema(
        request=MemoryNoticeAnswerInputSerializer,
        responses={200: MemoryNoticeSerializer, **step_up_responses(400, 404, 409)},
    )
    def post(self, request, pk):
        notice = memory_notice_list(member_id=request.user.pk).filter(pk=pk).first()
        if notice is None:
            raise NotFound()
        serializer = self.MemoryNoticeAnswerInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        if notice.kind == MemoryNotice.Kind.RECONFIRM:
            if "answer" not in data or "accept" in data:
                raise InvalidInput(fields={"answer": ["Answer `confirm` or `forget`."]})
            if data["answer"] == ReconfirmAnswer.FORGET:
                require_api_step_up(request)  # forgetting: a recent re-authentication
            notice = memory_reconfirm_answer(
                notice=notice, answer=data["answer"], actor=Actor.of(request.user)
            )
        elif notice.kind == MemoryNotice.Kind.PROMOTION:
            if data.get("answer") not in PromotionAnswer.CHOICES or "accept" in data:
                raise InvalidInput(fields={"answer": ["Answer `keep` or `forget`."]})
            if data["answer"] == PromotionAnswer.FORGET:
                require_api_step_up(request)  # forgetting: a recent re-authentication
            notice = memory_promotion_answer(
                notice=notice, answer=data["answer"], actor=Actor.of(request.user)
            )
        else:
            if "accept" not in data or "answer" in data:
                raise InvalidInput(fields={"accept": ["Answer true or false."]})
            notice = memory_notice_answer(
                notice=notice, accept=data["accept"], actor=Actor.of(request.user)
            )
        return Response(MemoryNoticeSerializer(notice).data)
