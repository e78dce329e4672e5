"""How memory's idempotent writes answer a retry (`iris_site.idempotency`): from the ids
the first answer named and the entry or turn as it is now, never from a stored body.

An entry that is forgotten, held for a deletion or hidden by a pending full clear is gone
(410); so is, for a surface, an entry changed since its write (a write's echo holds only
what that caller sent, never a later edit of the member's).
"""

from rest_framework.response import Response

from memory.models import ConversationTurn
from memory.selectors import entry_contract, memory_entry_list
from memory.serializers import ConversationTurnOutputSerializer

# The headers a remember's answer may carry: codes, never content (`memory.apis`).
_REMEMBER_HEADERS = ("Iris-Promotion", "Iris-Stored-As")


def remember_reference(response) -> dict:
    """The entry a remember answered with (stored, or kept by the conflict ladder)."""
    data = response.data
    kept = response.status_code != 201
    entry = data["entry"] if kept else data
    reference = {"entry_id": str(entry["id"]), "revision_id": str(entry["revision_id"])}
    if kept:
        reference |= {
            "kept": True,
            "conflict_rule": data.get("conflict_rule"),
            "notice_id": data.get("notice_id"),
        }
    headers = {name: response[name] for name in _REMEMBER_HEADERS if response.has_header(name)}
    if headers:
        reference["headers"] = headers
    return reference


def _remember_replay(reference: dict, *, member_id, same_revision: bool) -> Response | None:
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
            "outcome": "kept-existing",
            "conflict_rule": reference["conflict_rule"],
            "entry": data,
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
    """The entry as this surface's write left it, while it is still that revision."""
    return _remember_replay(reference, member_id=member_id, same_revision=True)


def turn_replay(request, reference: dict, *, member_id, **kwargs) -> dict | None:
    turn = ConversationTurn.objects.filter(member_id=member_id, pk=reference.get("id")).first()
    return None if turn is None else ConversationTurnOutputSerializer(turn).data
