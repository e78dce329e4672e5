"""How the short-term endpoints answer a retry with the same `Idempotency-Key`
(`iris_site.idempotency`): from the ids the first answer named and the row or entry as
it is now. A row erased or expired (its content anonymized), or a consolidated entry
since forgotten, is gone (410)."""

from hierarchy.stm import stm_content, stm_row_get
from memory.enums import Lifecycle
from memory.member_settings import surface_pause_check
from memory.models import MemoryEntry


def stm_write_replay(request, reference: dict, *, member_id, **kwargs) -> dict | None:
    # Imported here: `hierarchy.stm_apis` imports this module for its decorators.
    from hierarchy.stm_apis import stm_output

    # A surface the member paused since reads nothing of theirs, not even its own write's
    # echo: refused as the write would be (422 `surface-paused`).
    surface_pause_check(member_id=member_id, consumer=getattr(request.user, "consumer", None))
    row = stm_row_get(member_id=member_id, stm_id=reference.get("id"))
    if row is None or row.anonymized_at is not None:
        return None
    return stm_output(row, stm_content(row))


def consolidate_reference(response) -> dict:
    """The whole answer: ids, flags, a trigger code and a time (the view is
    content-free), so it outlives the short-term row, which expires within minutes."""
    return dict(response.data)


def consolidate_replay(request, reference: dict, *, member_id, **kwargs) -> dict | None:
    """The consolidation's answer while the entry it made or kept is still there."""
    alive = (
        MemoryEntry.objects.filter(member_id=member_id, pk=reference.get("entry_id"))
        .exclude(lifecycle=Lifecycle.TOMBSTONED)
        .exists()
    )
    return dict(reference) if alive else None
