"""Continuity's pure rules: conflict resolution between devices, who may read or write
which surface, and the device reference. Who may read a sensitive token is the read
gate's token rule (`memory.access.gate.decide`; its SQL twin is in `continuity.selectors`).

No ORM: these rules are tested without a database.
"""

import hashlib
import hmac
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from continuity.enums import Surface, WriteOutcome

# Two devices writing the same slot closer together than this were both "playing": the
# loser is told. Further apart it is an ordinary hand-off and nobody needs a notice.
CONFLICT_WINDOW = timedelta(seconds=120)

RECENT_DEFAULT = 5
RECENT_MAX = 50

# The shell renders the continuation cards for every surface; a surface sees its own.
CROSS_SURFACE_READERS = frozenset({Surface.SHELL.value})

# Seed 001: "the token and the durable anchorRef resume mid-segment for any surface that
# supports it (Tara audio, Psyche voice, Living Scenes)". Elsewhere the anchor is the start.
MID_SEGMENT_SURFACES = frozenset(
    {Surface.TARA.value, Surface.PSYCHE.value, Surface.LIVING_SCENE.value}
)

# Delivered notices are history; they are purged after this.
NOTICE_RETENTION = timedelta(days=30)


def device_ref(*, secret: bytes, member_id: uuid.UUID | str, device_id: str) -> str:
    """A keyed, member-bound digest of a device id: what the audit chain may keep of it."""
    message = f"{member_id}\x00{device_id}".encode()
    return hmac.new(secret, message, hashlib.sha256).hexdigest()[:32]


@dataclass(frozen=True, slots=True)
class SlotHead:
    """The slot's current token, as the conflict rule sees it."""

    device_id: str
    recorded_at: datetime  # server time of the write that put it there


@dataclass(frozen=True, slots=True)
class Resolution:
    outcome: WriteOutcome
    # The device that lost a contested write and gets the "also playing" notice.
    notify_device_id: str | None = None

    @property
    def applied(self) -> bool:
        return self.outcome != WriteOutcome.SUPERSEDED


def resolve_write(
    head: SlotHead | None,
    *,
    device_id: str,
    now: datetime,
    window: timedelta = CONFLICT_WINDOW,
) -> Resolution:
    """Last writer wins by server timestamp; the loser of a close race is never silent.

    `now` is the server time of the incoming write, taken while the slot is locked, so the
    writes of one slot are totally ordered. An equal timestamp goes to the incoming write
    (it was serialized later); an earlier one (clock skew between app servers) loses.
    A different device within `window` of the other write gets a notice.
    """
    if head is None:
        return Resolution(WriteOutcome.CREATED)
    contested = head.device_id != device_id and abs(now - head.recorded_at) <= window
    if now < head.recorded_at:
        return Resolution(WriteOutcome.SUPERSEDED, device_id if contested else None)
    return Resolution(WriteOutcome.REPLACED, head.device_id if contested else None)


def may_write_surface(consumer: str, surface: str) -> bool:
    """A service client writes tokens of its own surface only."""
    return consumer == surface


def readable_surfaces(consumer: str) -> frozenset[str]:
    """Surfaces whose tokens a service client may read (empty: not a continuity surface)."""
    if consumer in CROSS_SURFACE_READERS:
        return frozenset(Surface.values)
    if consumer in Surface.values:
        return frozenset({consumer})
    return frozenset()


def resumes_mid_segment(surface: str) -> bool:
    return surface in MID_SEGMENT_SURFACES
