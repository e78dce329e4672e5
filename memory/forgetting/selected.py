"""Forget several memories at once ("Forget selected"): all of them or none.

Each entry goes through the per-entry forget
(`memory.forgetting.services.memory_tombstone`: its text erased from every store now, a
fingerprint keeps it from coming back by itself), all in one transaction. An id that is
not one of the member's listed memories (another member's, already forgotten, held for a
pending deletion, or anything while a full clear waits) refuses the whole request with 404
before anything is forgotten.
"""

import uuid
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from django.db import transaction

from iris_site.audit.actions import AuditAction
from iris_site.audit.events import Actor, audit_event_append
from iris_site.errors import InvalidInput, NotFound
from iris_site.models import User
from memory.forgetting.services import memory_tombstone
from memory.models import MemoryEntry
from memory.selectors import memory_entry_list

POLICY_ID = "iris.memory.forget_selected.v1"
MAX_SELECTED = 200


@dataclass(frozen=True, slots=True)
class ForgetSelectedResult:
    entry_ids: tuple[str, ...]
    by_category: dict[str, int]  # category → how many of them were forgotten

    @property
    def count(self) -> int:
        return len(self.entry_ids)


def _ids(raw: Iterable) -> list[uuid.UUID]:
    ids: list[uuid.UUID] = []
    for value in raw:
        try:
            parsed = uuid.UUID(str(value))
        except (TypeError, ValueError, AttributeError):
            raise InvalidInput(fields={"ids": ["Give memory ids."]}) from None
        if parsed not in ids:
            ids.append(parsed)
    if not ids:
        raise InvalidInput(fields={"ids": ["Pick at least one memory."]})
    if len(ids) > MAX_SELECTED:
        raise InvalidInput(fields={"ids": [f"At most {MAX_SELECTED} at once."]})
    return ids


def memory_forget_selection(*, member: User, entry_ids: Iterable) -> list[MemoryEntry]:
    """The member's listed memories among these ids, in the order given; 404 unless
    every id is one of them (nothing is said about which one was not)."""
    ids = _ids(entry_ids)
    found = {e.pk: e for e in memory_entry_list(member_id=member.pk).filter(pk__in=ids)}
    if len(found) != len(ids):
        raise NotFound()
    return [found[i] for i in ids]


@transaction.atomic
def memory_forget_selected(
    *, member: User, entry_ids: Iterable, actor: Actor
) -> ForgetSelectedResult:
    """Forget every one of these memories, or (on any refusal) none of them."""
    entries = memory_forget_selection(member=member, entry_ids=entry_ids)
    by_category: Counter[str] = Counter()
    for entry in entries:
        memory_tombstone(entry=entry, actor=actor)
        by_category[entry.category] += 1
    ids = tuple(str(e.pk) for e in entries)
    audit_event_append(
        action=AuditAction.MEMORY_ENTRIES_FORGOTTEN_SELECTED,
        policy_id=POLICY_ID,
        actor=actor,
        target_member_id=member.pk,
        payload={
            "entry_ids": list(ids),
            "forgotten_count": len(ids),
            "by_category": [{"category": c, "count": n} for c, n in sorted(by_category.items())],
        },
    )
    return ForgetSelectedResult(entry_ids=ids, by_category=dict(by_category))
