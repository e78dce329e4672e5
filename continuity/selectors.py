"""Reads of continuation tokens. Every read passes the cross-device consent guard, in SQL.

Other apps (the member memory page) ask here, never the models.
"""

import uuid
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Q, QuerySet
from django.utils import timezone

from consent.enums import BaseConsentType
from consent.policy import is_in_force
from consent.selectors import consent_states
from continuity.enums import Posture, Surface
from continuity.models import ContinuationToken, ContinuityNotice
from continuity.policy import RECENT_DEFAULT, RECENT_MAX, resumes_mid_segment
from iris_site.errors import NotFound


def continuity_cross_device_grant_id(*, member_id, now: datetime | None = None) -> str | None:
    """The id of the member's `cross_device` grant in force now, if any."""
    state = consent_states(member_id=member_id).get(BaseConsentType.CROSS_DEVICE)
    if state is None or not is_in_force(state, now or timezone.now()):
        return None
    return state.event_id


def _guard(reader_device_id: str | None, grant_id: str | None) -> Q:
    # SQL twin of `policy.token_readable`; a test holds the two to the same answers.
    readable = Q(is_sensitive=False)
    if reader_device_id is not None:
        readable |= Q(device_id=reader_device_id)
    if grant_id is not None:
        readable |= Q(cross_device_consent_id=grant_id)
    return readable


def continuation_token_readable(
    *,
    member_id,
    reader_device_id: str | None = None,
    surfaces: Collection[str] | None = None,
    now: datetime | None = None,
) -> QuerySet[ContinuationToken]:
    """The member's tokens this reader may see, most recent (by server time) first."""
    grant_id = continuity_cross_device_grant_id(member_id=member_id, now=now)
    tokens = ContinuationToken.objects.filter(member_id=member_id).filter(
        _guard(reader_device_id, grant_id)
    )
    if surfaces is not None:
        tokens = tokens.filter(surface__in=list(surfaces))
    return tokens.order_by("-recorded_at", "id")


def continuation_token_recent(
    *,
    member_id,
    limit: int = RECENT_DEFAULT,
    reader_device_id: str | None = None,
    surfaces: Collection[str] | None = None,
    now: datetime | None = None,
) -> list[ContinuationToken]:
    """The most recent `limit` tokens (1..50) for the continuation cards."""
    limit = max(1, min(limit, RECENT_MAX))
    return list(
        continuation_token_readable(
            member_id=member_id, reader_device_id=reader_device_id, surfaces=surfaces, now=now
        )[:limit]
    )


def continuation_token_get(
    *,
    member_id,
    token_id: uuid.UUID,
    reader_device_id: str | None = None,
    surfaces: Collection[str] | None = None,
    now: datetime | None = None,
) -> ContinuationToken:
    """One slot's token by its id; another member's, or one the guard hides, is a 404."""
    token = (
        continuation_token_readable(
            member_id=member_id, reader_device_id=reader_device_id, surfaces=surfaces, now=now
        )
        .filter(pk=token_id)
        .first()
    )
    if token is None:
        raise NotFound()
    return token


@dataclass(frozen=True, slots=True)
class Resume:
    """Where to pick up: the anchor and the cursor inside it."""

    id: uuid.UUID
    token_id: uuid.UUID
    surface: str
    scope_key: str
    session_id: str | None
    anchor_id: str
    cursor: str
    posture: str
    device_id: str
    recorded_at: datetime
    # True where the surface resumes inside a segment (audio, voice, scene).
    mid_segment: bool


def continuation_resume(
    *,
    member_id,
    token_id: uuid.UUID,
    reader_device_id: str | None = None,
    surfaces: Collection[str] | None = None,
    now: datetime | None = None,
) -> Resume:
    token = continuation_token_get(
        member_id=member_id,
        token_id=token_id,
        reader_device_id=reader_device_id,
        surfaces=surfaces,
        now=now,
    )
    return Resume(
        id=token.id,
        token_id=token.token_id,
        surface=token.surface,
        scope_key=token.scope_key,
        session_id=token.session_id,
        anchor_id=token.anchor_id,
        cursor=token.cursor,
        posture=token.posture,
        device_id=token.device_id,
        recorded_at=token.recorded_at,
        mid_segment=resumes_mid_segment(token.surface),
    )


def continuity_notices_pending(
    *, member_id, device_id: str, surfaces: Collection[str] | None = None
) -> QuerySet[ContinuityNotice]:
    """Notices waiting for this device's next read, oldest first."""
    notices = ContinuityNotice.objects.filter(
        member_id=member_id, device_id=device_id, delivered_at__isnull=True
    ).select_related("token")
    if surfaces is not None:
        notices = notices.filter(token__surface__in=list(surfaces))
    return notices.order_by("created_at", "id")


# --- Continuation cards (the member memory page) ----------------------------------------


@dataclass(frozen=True, slots=True)
class ContinuationCard:
    id: uuid.UUID
    anchor_id: str
    cursor: str
    posture: str
    posture_label: str
    device_id: str
    recorded_at: datetime


@dataclass(frozen=True, slots=True)
class SurfaceCards:
    surface: str
    label: str
    heading_id: str  # unique in the page, for the group's aria-labelledby
    cards: tuple[ContinuationCard, ...]


def continuation_cards(
    *, member_id, per_surface: int = RECENT_DEFAULT, now: datetime | None = None
) -> list[SurfaceCards]:
    """Recent tokens grouped by surface, most recently used surface first, as the member's
    browser may see them (a browser is "another device" to the consent guard)."""
    groups: dict[str, list[ContinuationCard]] = {}
    for token in continuation_token_readable(member_id=member_id, now=now)[:RECENT_MAX]:
        cards = groups.setdefault(token.surface, [])
        if len(cards) < per_surface:
            cards.append(
                ContinuationCard(
                    id=token.id,
                    anchor_id=token.anchor_id,
                    cursor=token.cursor,
                    posture=token.posture,
                    posture_label=Posture(token.posture).label,
                    device_id=token.device_id,
                    recorded_at=token.recorded_at,
                )
            )
    return [
        SurfaceCards(
            surface=surface,
            label=Surface(surface).label,
            heading_id=f"continuation-{surface}",
            cards=tuple(cards),
        )
        for surface, cards in groups.items()
    ]
