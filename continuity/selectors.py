"""Reads of continuation tokens. Every token returned passes the read gate.

The rule is `memory.access.gate.decide` on `token_item(token)`: a token naming sensitive
categories is readable by a service client only on the device that wrote it (the
authenticated client recorded at write AND the device id it recorded) or under the
member's `cross_device` grant it names, while that grant is in force. `_readable` is its
SQL twin, so lists are cut and limited in the database; each selected token is then
decided by the gate itself, and a test holds the two to the same answers over every
combination. The member's own browser is never "the device that wrote it": the SQL twin
gives the member reader no own device, only the grant.

Other apps (the member memory page) ask here, never the models.
"""

import uuid
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Q, QuerySet
from django.utils import timezone

from consent.enums import BaseConsentType
from consent.selectors import consent_active
from continuity.enums import Posture, Surface
from continuity.models import ContinuationToken, ContinuityNotice
from continuity.policy import RECENT_DEFAULT, RECENT_MAX, resumes_mid_segment
from iris_site.errors import NotFound
from memory.access.gate import (
    CROSS_DEVICE_REQUIRED,
    ContentItem,
    ContentKind,
    MemberState,
    Reader,
    ReaderKind,
    decide,
    kind_reason,
)
from memory.selectors import member_read_state


def continuity_cross_device_grant_id(*, member_id, now: datetime | None = None) -> str | None:
    """The id of the member's `cross_device` grant in force now, if any."""
    return consent_active(member_id=member_id, now=now).grants.get(BaseConsentType.CROSS_DEVICE)


def _id(value) -> str | None:
    return None if value is None else str(value)


def token_item(token: ContinuationToken) -> ContentItem:
    """A token as the read gate sees it: who wrote it, on which device, under which grant.
    No scope or tenant: a token holds references, never content, and its tenant was
    checked against the member's memberships when it was written."""
    return ContentItem(
        kind=ContentKind.TOKEN,
        item_id=str(token.pk),
        member_id=str(token.member_id),
        sensitive=token.is_sensitive,
        writer_client_id=_id(token.written_by_client_id),
        device_id=token.device_id,
        cross_device_consent_id=_id(token.cross_device_consent_id),
    )


def member_token_reader(member_id) -> Reader:
    """The member's own browser: the gate's member reader, and never "the device that
    wrote" a token (the SQL twin gives it no own device)."""
    return Reader(kind=ReaderKind.MEMBER, member_id=str(member_id))


def _readable(reader: Reader, grant_id: str | None) -> Q:
    """SQL twin of the gate's token rule (see the module docstring)."""
    readable = Q(is_sensitive=False)
    if reader.kind == ReaderKind.SERVICE and reader.client_id and reader.device_id:
        readable |= Q(written_by_client_id=reader.client_id, device_id=reader.device_id)
    if grant_id is not None:
        readable |= Q(cross_device_consent_id=grant_id)
    return readable


def _tokens(member_id, surfaces: Collection[str] | None) -> QuerySet[ContinuationToken]:
    tokens = ContinuationToken.objects.filter(member_id=member_id)
    if surfaces is not None:
        tokens = tokens.filter(surface__in=list(surfaces))
    return tokens


def continuation_token_readable(
    *,
    member_id,
    reader: Reader,
    surfaces: Collection[str] | None = None,
    now: datetime | None = None,
    state: MemberState | None = None,
) -> QuerySet[ContinuationToken]:
    """The SQL twin's selection: the member's tokens `reader` may see, most recent (by
    server time) first. Paths that return tokens confirm each with the gate
    (`continuation_token_recent`, `continuation_token_get`), handing over the member's
    state they read for it (its ledger names the cross-device grant in force)."""
    if state is None:
        grant_id = continuity_cross_device_grant_id(member_id=member_id, now=now)
    else:
        grant_id = state.cross_device_grant_id
    readable = _tokens(member_id, surfaces).filter(_readable(reader, grant_id))
    return readable.order_by("-recorded_at", "id")


def _confirmed(tokens, *, reader: Reader, state: MemberState, now: datetime) -> list:
    """The gate decides each token the SQL selected (the twins agree, so nothing is
    dropped unless they drift apart, and then the gate's answer stands)."""
    return [t for t in tokens if decide(token_item(t), reader, state, now) is None]


def continuation_token_withheld(
    *,
    member_id,
    reader: Reader,
    surfaces: Collection[str] | None = None,
    now: datetime | None = None,
) -> dict[str, int]:
    """How many of the member's tokens (of `surfaces`) the gate withholds from this
    reader, by reason: all of them when the gate withholds the kind from this surface as a
    whole (a surface the member paused, a missing base consent), else each sensitive token
    away from the device that wrote it, without the grant it names in force."""
    if reader.kind == ReaderKind.SERVICE:
        whole = kind_reason(
            ContentKind.TOKEN, None, reader, member_read_state(member_id=member_id, now=now)
        )
        if whole is not None:
            count = _tokens(member_id, surfaces).count()
            return {whole: count} if count else {}
    grant_id = continuity_cross_device_grant_id(member_id=member_id, now=now)
    count = _tokens(member_id, surfaces).exclude(_readable(reader, grant_id)).count()
    return {CROSS_DEVICE_REQUIRED: count} if count else {}


def continuation_token_recent(
    *,
    member_id,
    reader: Reader,
    limit: int = RECENT_DEFAULT,
    surfaces: Collection[str] | None = None,
    now: datetime | None = None,
) -> list[ContinuationToken]:
    """The most recent `limit` tokens (1..50) `reader` may see."""
    limit = max(1, min(limit, RECENT_MAX))
    now = now or timezone.now()
    # One read of the member's state (its ledger names the cross-device grant) serves
    # the SQL twin and the gate.
    state = member_read_state(member_id=member_id, now=now)
    selected = continuation_token_readable(
        member_id=member_id, reader=reader, surfaces=surfaces, state=state
    )[:limit]
    return _confirmed(selected, reader=reader, state=state, now=now)


def continuation_token_get(
    *,
    member_id,
    token_id: uuid.UUID,
    reader: Reader,
    surfaces: Collection[str] | None = None,
    now: datetime | None = None,
) -> ContinuationToken:
    """One slot's token by its id; another member's, or one the gate hides, is a 404."""
    now = now or timezone.now()
    state = member_read_state(member_id=member_id, now=now)
    selected = continuation_token_readable(
        member_id=member_id, reader=reader, surfaces=surfaces, state=state
    )
    confirmed = _confirmed(selected.filter(pk=token_id), reader=reader, state=state, now=now)
    if not confirmed:
        raise NotFound()
    return confirmed[0]


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
    reader: Reader,
    surfaces: Collection[str] | None = None,
    now: datetime | None = None,
) -> Resume:
    token = continuation_token_get(
        member_id=member_id, token_id=token_id, reader=reader, surfaces=surfaces, now=now
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
    *,
    member_id,
    device_id: str,
    reader_client_id=None,
    surfaces: Collection[str] | None = None,
) -> QuerySet[ContinuityNotice]:
    """Notices waiting for this device's next read, oldest first. A service client gets
    the notices of its own lost writes only (`reader_client_id`); the member (None) all
    of theirs for that device."""
    notices = ContinuityNotice.objects.filter(
        member_id=member_id, device_id=device_id, delivered_at__isnull=True
    ).select_related("token")
    if reader_client_id is not None:
        notices = notices.filter(device_client_id=reader_client_id)
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
    for token in continuation_token_recent(
        member_id=member_id, reader=member_token_reader(member_id), limit=RECENT_MAX, now=now
    ):
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
