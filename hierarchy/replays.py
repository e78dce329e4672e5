"""How the short-term endpoints answer a retry with the same `Idempotency-Key`
(`iris_site.idempotency`): from the ids the first answer named and the row or entry as
it is now. A row erased or expired (its content anonymized), or a consolidated entry
since forgotten, is gone (410)."""

from hierarchy.stm import stm_echo, stm_reader, stm_row_get
from hierarchy.stm_serializers import stm_output
from memory.controls import surface_pause_check
from memory.enums import Lifecycle, RecallContext
from memory.http.replays import kept_entry_visible
from memory.models import MemoryEntry
from memory.selectors import principal_capabilities


def stm_write_replay(request, reference: dict, *, member_id, **kwargs) -> dict | None:
    # A surface the member paused since reads nothing of theirs, not even its own write's
    # echo: refused as the write would be (422 `surface-paused`).
    surface_pause_check(member_id=member_id, consumer=getattr(request.user, "consumer", None))
    row = stm_row_get(member_id=member_id, stm_id=reference.get("id"))
    if row is None or row.anonymized_at is not None:
        return None
    # The write's own echo, naming what the row was consolidated into since only as a
    # read in the general context would.
    reader = stm_reader(
        member_id=member_id,
        capabilities=principal_capabilities(request.user),
        client_id=request.user.pk,
        context=RecallContext.GENERAL,
    )
    return stm_output(stm_echo(row, reader=reader))


def consolidate_reference(response) -> dict:
    """The whole answer: ids, flags, a trigger code and a time (the view is
    content-free), so it outlives the short-term row, which expires within minutes; and
    the entry made or kept, which the answer names only if this surface may see it."""
    return dict(response.data) | {"made_or_kept": str(response.made_or_kept)}


def consolidate_replay(request, reference: dict, *, member_id, **kwargs) -> dict | None:
    """The consolidation's answer while the entry it made or kept is still there, naming
    a kept one only if the read gate shows it to this surface now (as the first answer)."""
    answer = {k: v for k, v in reference.items() if k != "made_or_kept"}
    entry_id = reference.get("made_or_kept") or reference.get("entry_id")
    alive = (
        MemoryEntry.objects.filter(member_id=member_id, pk=entry_id)
        .exclude(lifecycle=Lifecycle.TOMBSTONED)
        .exists()
    )
    if not alive:
        return None
    named = answer.get("created") or kept_entry_visible(
        request.user, member_id=member_id, entry_id=entry_id
    )
    return answer | {"entry_id": entry_id if named else None}
