"""Whether a surface may ask the member an open question: pure, no ORM.

A question is about one memory, and a conflict question also carries the proposal that
would replace it, held as a draft until the member answers. The reader may ask it only
when the read gate (`memory.access.gate.decide`) lets it see the memory and the proposal. The
proposal is decided as the entry it would become (active): a draft never surfaces
otherwise, and every other check (tenant, owner, capabilities, consents, the context, a
pending full clear, off the record, suppressions, holds) applies to it unchanged.
"""

import dataclasses
from datetime import datetime

from memory.access.gate import ContentItem, MemberState, Reader, decide
from memory.enums import Lifecycle


def question_reason(
    entry: ContentItem,
    proposal: ContentItem | None,
    reader: Reader,
    state: MemberState,
    now: datetime,
) -> str | None:
    """``None`` when ``reader`` may ask the question, else the gate's reason to withhold
    it (the memory's first, then the proposal's)."""
    reason = decide(entry, reader, state, now)
    if reason is None and proposal is not None:
        as_stored = dataclasses.replace(proposal, lifecycle=Lifecycle.ACTIVE)
        reason = decide(as_stored, reader, state, now)
    return reason
