"""Writes of continuity: token writes (last-writer-wins), notice delivery,
the consent-ended record and housekeeping. Each appends its audit event in the same
transaction; payloads carry ids, enums and numbers only (devices as keyed digests)."""

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from continuity.contracts import ContinuationToken as TokenContract
from continuity.enums import WriteOutcome
from continuity.models import ContinuationToken, ContinuityNotice
from continuity.policy import (
    NOTICE_RETENTION,
    SlotHead,
    device_ref,
    may_write_surface,
    resolve_write,
)
from continuity.selectors import continuity_cross_device_grant_id, continuity_notices_pending
from iris_site.audit.actions import AuditAction
from iris_site.audit.enums import Severity
from iris_site.audit.events import Actor, audit_event_append
from iris_site.errors import InvalidInput, NotFound, NotPermitted
from iris_site.models import ServiceClient, User
from iris_site.services import member_lock
from memory.controls import surface_pause_check
from memory.selectors import ensure_no_pending_clear

POLICY_ID = "iris.continuity.tokens.v1"


def _iso(moment: datetime) -> str:
    # The same spelling DRF's DateTimeField gives, so stored answers read like live ones.
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _device_ref(member_id, device_id: str) -> str:
    return device_ref(
        secret=settings.IRIS_HASH_SECRET.encode(), member_id=member_id, device_id=device_id
    )


@dataclass(frozen=True, slots=True)
class WriteResult:
    # The answer: the token as written, its slot, revision and outcome.
    answer: dict[str, Any]
    outcome: WriteOutcome
    token: ContinuationToken | None
    notice: ContinuityNotice | None = None


def write_answer(
    contract: TokenContract, *, slot_id, recorded_at: datetime | str, revision: int, outcome: str
) -> dict[str, Any]:
    """A write's answer: the token as sent plus where and how it landed. References
    only, so a replay (`continuity.apis`) rebuilds it from the request and the ids."""
    return {
        "id": str(slot_id),
        **contract.wire(),
        "recorded_at": recorded_at if isinstance(recorded_at, str) else _iso(recorded_at),
        "revision": revision,
        "outcome": outcome,
    }


def _check_references(*, member: User, contract: TokenContract, now: datetime) -> None:
    """What the contract cannot know alone: whose token it is and which consent it names."""
    if contract.user_id != member.pk:
        raise InvalidInput(
            "The token belongs to another member.",
            fields={"user_id": ["Must be the member named in the path."]},
        )
    if contract.cross_device_consent_id is not None:
        grant_id = continuity_cross_device_grant_id(member_id=member.pk, now=now)
        if grant_id is None or str(contract.cross_device_consent_id) != grant_id:
            raise InvalidInput(
                "The token names no cross-device consent in force.",
                code="cross-device-consent-not-active",
                fields={
                    "cross_device_consent_id": [
                        "Must name the member's cross_device grant that is in force now."
                    ]
                },
            )
    tenant_id = contract.surface_context.tenant_id
    if tenant_id is not None and not member.tenant_memberships.filter(tenant_id=tenant_id).exists():
        raise NotFound()  # another tenant's context: no existence leak


def _apply(
    slot: ContinuationToken, contract: TokenContract, client: ServiceClient | None, now: datetime
) -> None:
    slot.token_id = contract.token_id
    slot.device_id = contract.device_id
    slot.written_by_client = client
    slot.session_id = contract.surface_context.session_id
    slot.tenant_id = contract.surface_context.tenant_id
    slot.anchor_id = contract.anchor_ref.anchor_id
    slot.cursor = contract.anchor_ref.cursor
    slot.posture = contract.posture
    slot.sensitive_categories = list(contract.sensitive_categories)
    slot.is_sensitive = bool(contract.sensitive_categories)
    slot.cross_device_consent_id = contract.cross_device_consent_id
    slot.idempotency_key = contract.idempotency_key
    slot.last_updated_at = contract.last_updated_at
    slot.recorded_at = now


def _notice_raise(
    *,
    slot: ContinuationToken,
    loser_device_id: str,
    loser: dict[str, Any],
    winner: dict[str, Any],
    now: datetime,
) -> ContinuityNotice:
    """One pending notice per device and slot: a newer loss refreshes it."""
    fields = {
        "member_id": slot.member_id,
        "device_client_id": loser["client_id"],
        "superseded_token_id": loser["token_id"],
        "superseded_anchor_id": loser["anchor_id"],
        "superseded_cursor": loser["cursor"],
        "superseded_posture": loser["posture"],
        "winning_token_id": winner["token_id"],
        "winning_device_id": winner["device_id"],
        "winning_recorded_at": winner["recorded_at"],
        "created_at": now,
    }
    notice = ContinuityNotice.objects.filter(
        token=slot, device_id=loser_device_id, delivered_at__isnull=True
    ).first()
    if notice is None:
        notice = ContinuityNotice(token=slot, device_id=loser_device_id, **fields)
    else:
        for name, value in fields.items():
            setattr(notice, name, value)
    notice.full_clean()
    notice.save()
    return notice


def _place(source, client: ServiceClient | None = None) -> dict[str, Any]:
    """A token's place (and the client that wrote it), from the stored slot or an
    incoming contract written by `client`."""
    if isinstance(source, ContinuationToken):
        return {
            "token_id": source.token_id,
            "device_id": source.device_id,
            "client_id": source.written_by_client_id,
            "anchor_id": source.anchor_id,
            "cursor": source.cursor,
            "posture": source.posture,
            "recorded_at": source.recorded_at,
        }
    return {
        "token_id": source.token_id,
        "device_id": source.device_id,
        "client_id": client.pk if client is not None else None,
        "anchor_id": source.anchor_ref.anchor_id,
        "cursor": source.anchor_ref.cursor,
        "posture": source.posture,
    }


@transaction.atomic
def continuation_token_write(
    *,
    member: User,
    contract: TokenContract,
    consumer: str,
    actor: Actor,
    client: ServiceClient | None = None,
    now: datetime | None = None,
) -> WriteResult:
    """Write a member's token for a surface, last writer wins by server time.

    The write takes its slot (member + surface + scope key) unless the slot holds a more
    recent write; when two devices race within the conflict window, the losing device
    gets an "also playing" notice. Retries are answered by the one idempotency layer
    (`iris_site.idempotency`, on the API view, keyed by the contract's idempotency_key).

    `client` is the authenticated service client writing (None for a system write such
    as the demo seed): recorded with the device id, it is what lets a sensitive token
    be read back on that device (the read gate's token rule).
    """
    if not may_write_surface(consumer, contract.surface):
        raise NotPermitted(
            f"Consumer `{consumer}` may write `{consumer}` tokens only.",
            code="surface-not-yours",
        )
    member_lock(member_id=member.pk)
    ensure_no_pending_clear(member_id=member.pk)
    # A surface the member paused writes nothing of theirs (422 `surface-paused`), checked
    # under the lock the settings change takes too.
    surface_pause_check(member_id=member.pk, consumer=consumer)
    # Taken under the lock, so the writes of one member are totally ordered in time.
    now = now or timezone.now()

    _check_references(member=member, contract=contract, now=now)

    slot = ContinuationToken.objects.filter(
        member=member, surface=contract.surface, scope_key=contract.scope_key
    ).first()
    head = SlotHead(slot.device_id, slot.recorded_at) if slot is not None else None
    resolution = resolve_write(head, device_id=contract.device_id, now=now)

    notice = None
    if resolution.outcome == WriteOutcome.CREATED:
        slot = ContinuationToken(member=member, surface=contract.surface, created_at=now)
        slot.scope_key = contract.scope_key
        _apply(slot, contract, client, now)
        slot.full_clean()
        slot.save(force_insert=True)
    elif resolution.outcome == WriteOutcome.REPLACED:
        previous = _place(slot)
        _apply(slot, contract, client, now)
        slot.revision += 1
        slot.full_clean()
        slot.save()
        if resolution.notify_device_id is not None:
            notice = _notice_raise(
                slot=slot,
                loser_device_id=resolution.notify_device_id,
                loser=previous,
                winner={**_place(contract, client), "recorded_at": now},
                now=now,
            )
    elif resolution.notify_device_id is not None:  # superseded: the stored write is newer
        notice = _notice_raise(
            slot=slot,
            loser_device_id=resolution.notify_device_id,
            loser=_place(contract, client),
            winner=_place(slot),
            now=now,
        )

    answer = write_answer(
        contract,
        slot_id=slot.pk,
        recorded_at=now,
        revision=slot.revision,
        outcome=resolution.outcome,
    )
    audit_event_append(
        action=AuditAction.CONTINUITY_TOKEN_WRITTEN,
        policy_id=POLICY_ID,
        actor=actor,
        severity=Severity.INFO,
        target_member_id=member.pk,
        target_tenant_id=contract.surface_context.tenant_id,
        payload={
            "slot_id": str(slot.pk),
            "token_id": str(contract.token_id),
            "surface": contract.surface,
            "posture": contract.posture,
            "outcome": resolution.outcome.value,
            "revision": slot.revision,
            "sensitive_category_count": len(contract.sensitive_categories),
            "cross_device_consent_id": str(contract.cross_device_consent_id)
            if contract.cross_device_consent_id
            else None,
            "device_ref": _device_ref(member.pk, contract.device_id),
        },
        occurred_at=now,
    )
    if notice is not None:
        audit_event_append(
            action=AuditAction.CONTINUITY_NOTICE_RAISED,
            policy_id=POLICY_ID,
            actor=actor,
            severity=Severity.INFO,
            target_member_id=member.pk,
            payload={
                "notice_id": str(notice.pk),
                "slot_id": str(slot.pk),
                "kind": notice.kind,
                "superseded_token_id": str(notice.superseded_token_id),
                "winning_token_id": str(notice.winning_token_id),
                "device_ref": _device_ref(member.pk, notice.device_id),
                "winning_device_ref": _device_ref(member.pk, notice.winning_device_id),
            },
            occurred_at=now,
        )
    return WriteResult(answer=answer, outcome=resolution.outcome, token=slot, notice=notice)


@transaction.atomic
def continuity_notices_deliver(
    *,
    member_id,
    device_id: str,
    actor: Actor,
    reader_client_id=None,
    surfaces=None,
    now: datetime | None = None,
) -> list[ContinuityNotice]:
    """Hand this device its pending notices and mark them delivered: the next read after a
    lost race carries the notice once (to a service client: of its own writes only)."""
    notices = list(
        continuity_notices_pending(
            member_id=member_id,
            device_id=device_id,
            reader_client_id=reader_client_id,
            surfaces=surfaces,
        ).select_for_update(of=("self",))
    )
    if not notices:
        return []
    now = now or timezone.now()
    ContinuityNotice.objects.filter(pk__in=[n.pk for n in notices]).update(delivered_at=now)
    for notice in notices:
        notice.delivered_at = now
    audit_event_append(
        action=AuditAction.CONTINUITY_NOTICE_DELIVERED,
        policy_id=POLICY_ID,
        actor=actor,
        target_member_id=member_id,
        payload={
            "notice_ids": sorted(str(n.pk) for n in notices),
            "device_ref": _device_ref(member_id, device_id),
        },
        occurred_at=now,
    )
    return notices


@transaction.atomic
def continuity_cross_device_ended(
    *, member_id, consent_event_id, kind: str, now: datetime | None = None
) -> int:
    """Record that the member's sensitive tokens no longer cross devices.

    Nothing needs deleting: every read asks the consent ledger (the read gate's token
    rule), so the tokens were hidden from other devices the moment the withdrawal
    committed. This puts
    that effect on the episodic chain. Returns the number of sensitive tokens now confined.
    """
    confined = ContinuationToken.objects.filter(member_id=member_id, is_sensitive=True).count()
    audit_event_append(
        action=AuditAction.CONTINUITY_CROSS_DEVICE_ENDED,
        policy_id=POLICY_ID,
        actor=Actor.system("continuity"),
        severity=Severity.INFO,
        target_member_id=member_id,
        payload={
            "consent_event_id": str(consent_event_id),
            "kind": kind,
            "confined_token_count": confined,
        },
        occurred_at=now,
    )
    return confined


@transaction.atomic
def continuity_purge_expired(*, now: datetime | None = None) -> dict[str, int]:
    """Forget notices delivered long ago (expired idempotency keys are the foundation's
    job: `iris_site.idempotency.idempotency_purge_expired`). Idempotent; records counts
    only."""
    now = now or timezone.now()
    notices, _ = ContinuityNotice.objects.filter(
        delivered_at__isnull=False, delivered_at__lte=now - NOTICE_RETENTION
    ).delete()
    counts = {"notice_count": notices}
    if notices:
        audit_event_append(
            action=AuditAction.CONTINUITY_HOUSEKEEPING_PURGED,
            policy_id=POLICY_ID,
            actor=Actor.system("continuity-purge"),
            payload=counts,
            occurred_at=now,
        )
    return counts
