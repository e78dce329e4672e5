"""How memory's idempotent writes answer a retry (`iris_site.idempotency`): from the ids
the first answer named and the entry or turn as it is now, never from a stored body.

An entry that is forgotten, held for a deletion or hidden by a pending full clear is gone
(410); so is, for a surface, an entry changed since its write (a write's echo holds only
what that caller sent, never a later edit of the member's).
"""

from django.utils import timezone
from rest_framework.response import Response

from memory.access.gate import Reader, ReaderKind
from memory.controls import surface_pause_check
from memory.http.serializers import ConversationTurnOutputSerializer
from memory.models import ConversationTurn
from memory.recall.store import entries_visible
from memory.selectors import (
    entry_contract,
    member_read_state,
    memory_entry_list,
    principal_capabilities,
)

# The headers a remember's answer may carry: codes, never content (`memory.http.apis`).
_REMEMBER_HEADERS = ("Iris-Promotion", "Iris-Stored-As")


def kept_entry_visible(principal, *, member_id, entry_id, session_id: str = "") -> bool:
    """May this surface see the memory the conflict ladder kept instead of its write?
    Only what the read gate would show it in a recall: a memory the member paused, one
    in a scope or category the surface may not read, or one of a kind the member opted
    out of is kept in silence (the answer names no entry), never echoed."""
    reader = Reader(
        kind=ReaderKind.SERVICE,
        member_id=str(member_id),
        capabilities=principal_capabilities(principal),
        client_id=str(principal.pk),
    )
    state = member_read_state(member_id=member_id, session_id=session_id)
    shown = entries_visible(
        member_id=member_id, entry_ids=[entry_id], reader=reader, state=state, now=timezone.now()
    )
    return str(entry_id) in shown


def remember_reference(response) -> dict:
    """The entry a remember answered with (stored, or kept by the conflict ladder; a kept
    entry withheld from the writer is named by the answer's `kept_entry`, not its body)."""
    data = response.data
    kept = response.status_code != 201
    entry = data["entry"] if kept else data
    withheld = kept and entry is None
    if withheld:
        entry = response.kept_entry
    reference = {"entry_id": str(entry["id"]), "revision_id": str(entry["revision_id"])}
    if withheld:
        reference["withheld"] = True
    if kept:
        reference |= {
            "kept": True,
            "outcome": data["outcome"],
            "conflict_rule": data.get("conflict_rule"),
            "notice_id": data.get("notice_id"),
        }
    headers = {name: response[name] for name in _REMEMBER_HEADERS if response.has_header(name)}
    if headers:
        reference["headers"] = headers
    return reference


def _remember_replay(
    reference: dict, *, member_id, same_revision: bool, echo=lambda entry: True
) -> Response | None:
    entry = (
        memory_entry_list(member_id=member_id)
        .filter(pk=reference["entry_id"])
        .select_related("revision")
        .first()
    )
    if entry is None:
        return None
    if same_revision and str(entry.revision_id) != reference["revision_id"]:
        return None
    data = entry_contract(entry).model_dump(mode="json")
    if reference.get("kept"):
        data = {
            # A reference stored before `unchanged` existed was a ladder's `kept-existing`.
            "outcome": reference.get("outcome", "kept-existing"),
            "conflict_rule": reference["conflict_rule"],
            "entry": data if not reference.get("withheld") and echo(entry) else None,
            "notice_id": reference["notice_id"],
        }
    response = Response(data)
    for name, value in reference.get("headers", {}).items():
        response[name] = value
    return response


def member_remember_replay(request, reference: dict, **kwargs) -> Response | None:
    """The member's own memory, as it is now."""
    return _remember_replay(reference, member_id=request.user.pk, same_revision=False)


def surface_remember_replay(request, reference: dict, *, member_id, **kwargs) -> Response | None:
    """The entry as this surface's write left it, while it is still that revision; a kept
    entry only while the read gate still shows it to this surface. A surface the member
    paused since is refused as its write would be (422 `surface-paused`)."""
    surface_pause_check(member_id=member_id, consumer=getattr(request.user, "consumer", None))
    return _remember_replay(
        reference,
        member_id=member_id,
        same_revision=True,
        echo=lambda entry: kept_entry_visible(
            request.user,
            member_id=member_id,
            entry_id=entry.pk,
            session_id=request.query_params.get("session_id") or "",
        ),
    )


def turn_replay(request, reference: dict, *, member_id, **kwargs) -> dict | None:
    turn = ConversationTurn.objects.filter(
        member_id=member_id, pk=reference.get("id"), deletion_hold__isnull=True
    ).first()
    return None if turn is None else ConversationTurnOutputSerializer(turn).data
