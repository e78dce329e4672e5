"""Notebooks' lifecycle over HTTP (`memory.forgetting.notebooks`): the member lists their
notebooks with their state and closes or deletes one (`/api/v1/me/notebooks/…`, with a
recent re-authentication: both forget). The notebook surface's close and delete
(`/api/v1/members/{member_id}/notebooks/…`) are refused `member-forgetting-only`: a
surface does not forget on the member's behalf (issue 42). Ids, states, times and counts
only.
"""

from django.db.models import CharField, Count, DateTimeField, Max, OuterRef, Q, Subquery, Value
from django.db.models.functions import Coalesce
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import generics, serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from iris_site.api.gated import content_free
from iris_site.api.members import member_or_404
from iris_site.api.pagination import CursorPagination
from iris_site.api.schema import error_responses
from iris_site.audit.events import Actor
from iris_site.permissions import IsMember, IsServiceClient
from iris_site.stepup import MemberForgettingOnly, require_api_step_up, step_up_responses
from memory.enums import Lifecycle, ScopeKind
from memory.forgetting.notebooks import NOTEBOOK_CLOSE_GRACE, notebook_close, notebook_delete
from memory.http.apis import session_id_of
from memory.models import MemoryEntry, NotebookClosure
from memory.selectors import principal_capabilities

OPEN = "open"
STATES = (OPEN, *NotebookClosure.State.values)


@extend_schema_field({"type": "string", "description": " | ".join(STATES)})
class NotebookStateField(serializers.CharField):
    """A notebook's state: `open`, `closed` or `deleted`. A plain string in the schema: an
    enum named `state` would collide with the other components' `state` enums (naming it
    needs an `ENUM_NAME_OVERRIDES` entry in the settings)."""


class NotebookSerializer(serializers.Serializer):
    notebook_id = serializers.CharField()
    state = NotebookStateField(
        help_text="`open`; `closed`: no new memory, erased after `erase_after`; `deleted`: "
        "its memory erased (tombstones keep ids and times only).",
    )
    entry_count = serializers.IntegerField(help_text="Memories in it not forgotten.")
    last_written_at = serializers.DateTimeField()
    closed_at = serializers.DateTimeField(allow_null=True)
    erase_after = serializers.DateTimeField(allow_null=True)


class NotebookClosureSerializer(serializers.ModelSerializer):
    state = NotebookStateField(help_text="`closed` or `deleted`.")

    class Meta:
        model = NotebookClosure
        fields = ("notebook_id", "state", "closed_at", "erase_after", "erased_at")


class NotebookDeletedSerializer(NotebookClosureSerializer):
    erased_count = serializers.IntegerField(help_text="Memories erased by this delete.")

    class Meta(NotebookClosureSerializer.Meta):
        fields = (*NotebookClosureSerializer.Meta.fields, "erased_count")


def _notebook_id(value: str) -> str:
    return session_id_of(value, field="notebook_id")


def _closed(closure: NotebookClosure) -> Response:
    return Response(NotebookClosureSerializer(closure).data)


def _deleted(end) -> Response:
    closure = end.closure
    closure.erased_count = len(end.erased_ids)
    return Response(NotebookDeletedSerializer(closure).data)


CLOSE_DOC = (
    "Close a notebook: nothing new is remembered in it (writes answer 409 "
    f"`notebook-closed`), and its memory is erased {NOTEBOOK_CLOSE_GRACE.days} days later "
    "by the retention sweep (`erase_after`), when it becomes deleted. Closing a closed "
    "notebook returns its closure unchanged. 404: no memory in that notebook, or deleted."
)
DELETE_DOC = (
    "Delete a notebook: its memory, and summaries made from it, is erased now (tombstones "
    "keep ids, times and a keyed digest). 404: no memory in that notebook, or deleted "
    "already."
)


@content_free
class MyNotebookListApi(generics.ListAPIView):
    """My notebooks (those I have memory in), by id, with their state."""

    class Pagination(CursorPagination):
        ordering = "notebook_id"

    permission_classes = [IsMember]
    serializer_class = NotebookSerializer
    pagination_class = Pagination

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return MemoryEntry.objects.none()
        closures = NotebookClosure.objects.filter(
            member_id=OuterRef("member_id"), notebook_id=OuterRef("notebook_id")
        )
        return (
            MemoryEntry.objects.filter(
                member_id=self.request.user.pk, scope_kind=ScopeKind.NOTEBOOK
            )
            .values("member_id", "notebook_id")
            .annotate(
                entry_count=Count("id", filter=~Q(lifecycle=Lifecycle.TOMBSTONED)),
                last_written_at=Max("updated_at"),
                state=Coalesce(
                    Subquery(closures.values("state")[:1]), Value(OPEN), output_field=CharField()
                ),
                closed_at=Subquery(closures.values("closed_at")[:1], output_field=DateTimeField()),
                erase_after=Subquery(
                    closures.values("erase_after")[:1], output_field=DateTimeField()
                ),
            )
        )

    @extend_schema(responses={200: NotebookSerializer(many=True), **error_responses(400)})
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)


@content_free
class MyNotebookCloseApi(APIView):
    __doc__ = CLOSE_DOC
    permission_classes = [IsMember]

    @extend_schema(
        request=None, responses={200: NotebookClosureSerializer, **step_up_responses(400, 404)}
    )
    def post(self, request, notebook_id):
        require_api_step_up(request)
        closure, _ = notebook_close(
            member=request.user, notebook_id=_notebook_id(notebook_id), actor=Actor.of(request.user)
        )
        return _closed(closure)


@content_free
class MyNotebookDetailApi(APIView):
    __doc__ = DELETE_DOC
    permission_classes = [IsMember]

    @extend_schema(responses={200: NotebookDeletedSerializer, **step_up_responses(400, 404)})
    def delete(self, request, notebook_id):
        require_api_step_up(request)
        end = notebook_delete(
            member=request.user, notebook_id=_notebook_id(notebook_id), actor=Actor.of(request.user)
        )
        return _deleted(end)


def _surface_member(request, member_id):
    """The member a notebook surface serves: 404 for no such member; 403 for a client
    whose consumer may not write notebook memory (the notebook consumer may); a surface
    that may is then refused `member-forgetting-only` (closing and deleting forget the
    member's memory, which only the member does, with a recent re-authentication)."""
    member = member_or_404(member_id)
    principal_capabilities(request.user).require_write_kind(ScopeKind.NOTEBOOK)
    return member


@content_free
class MemberNotebookCloseApi(APIView):
    __doc__ = (
        "Refused: 403 `member-forgetting-only`. Closing a notebook forgets its memory after "
        "the grace period; only the member does that (`POST /api/v1/me/notebooks/{id}/close/`, "
        "with a step-up token). A surface that may not write notebook memory: 403 as before."
    )
    permission_classes = [IsServiceClient]

    @extend_schema(
        operation_id="close_notebook",
        summary="Close a member's notebook (always refused to surfaces)",
        request=None,
        responses=error_responses(400, 403, 404),
    )
    def post(self, request, member_id, notebook_id):
        _surface_member(request, member_id)
        raise MemberForgettingOnly


@content_free
class MemberNotebookDetailApi(APIView):
    __doc__ = (
        "Refused: 403 `member-forgetting-only`. Deleting a notebook forgets its memory; only "
        "the member does that (`DELETE /api/v1/me/notebooks/{id}/`, with a step-up token)."
    )
    permission_classes = [IsServiceClient]

    @extend_schema(
        operation_id="delete_notebook",
        summary="Delete a member's notebook (always refused to surfaces)",
        responses=error_responses(400, 403, 404),
    )
    def delete(self, request, member_id, notebook_id):
        _surface_member(request, member_id)
        raise MemberForgettingOnly
