"""One `Idempotency-Key` implementation for every retryable write.

A retryable write's view method wears ``@idempotent(Scope.X, replay=...)``. When the
request carries the header (or, for continuation tokens, the body's key):

1. the key is *reserved* for (principal, scope, key) in its own, committed transaction,
   with a keyed fingerprint of the request (`request_fingerprint`: HMAC-SHA256 under
   `IRIS_HASH_SECRET` over the method, the resolved path, the query and the canonical
   JSON body — so no body, and no memory text in it, is stored or reversibly hashed);
2. a key already used is answered without running the handler: a completed use with the
   same fingerprint is *replayed*; another fingerprint is 409 `idempotency-key-reused`;
   a use still running is 409 `idempotency-in-progress` with `Retry-After` (one left
   in progress longer than `STALE_AFTER` — a crashed worker — is taken over); a use whose
   resource was erased is 410 `idempotency-resource-gone`;
3. otherwise the handler runs as it always did, outside any transaction of ours (its
   refusal audits commit on their own): a 2xx completes the record with the status code
   and a content-free `reference` (the ids the answer named); any other answer or an
   exception deletes the reservation, so a retry runs again.

A replay re-renders the answer from the reference and the resource as it is *now*
(`replay`); bodies are never stored, because they would hold memory a member may later
forget. A resource that no longer exists is 410, never written again. An erasure of the
member's content marks their records gone (`idempotency_records_erase`, wired into the
registry of content stores and the full clear by `memory.receivers`). Keys are
remembered for `IDEMPOTENCY_TTL` (24 hours); `idempotency_purge_expired` (hourly, from
`iris_site.tasks`) forgets older ones.
"""

import functools
import json
import logging
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from django.db import DatabaseError, IntegrityError, transaction
from django.http import QueryDict
from django.utils import timezone
from rest_framework.response import Response

from iris_site.api.exceptions import error_body
from iris_site.api.idempotency import document_idempotency
from iris_site.audit.actions import AuditAction
from iris_site.audit.events import Actor, audit_event_append
from iris_site.audit.policy import canonical_json
from iris_site.crypto import keyed_digest
from iris_site.errors import Conflict, DomainError, InvalidInput
from iris_site.models.idempotency import IDEMPOTENCY_TTL, KEY_MAX_LENGTH, IdempotencyRecord

logger = logging.getLogger(__name__)

__all__ = [
    "HEADER",
    "IDEMPOTENCY_TTL",
    "KEY_MAX_LENGTH",
    "REPLAYED_HEADER",
    "Scope",
    "idempotency_purge_expired",
    "idempotency_records_erase",
    "idempotency_records_residue",
    "idempotency_reserve",
    "idempotent",
    "key_problem",
    "request_fingerprint",
]

HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"
# A reservation older than this belongs to a request that died: a retry may take it over.
STALE_AFTER = timedelta(minutes=5)
RETRY_AFTER_SECONDS = 1
POLICY_ID = "iris.iris_site.idempotency.v1"
_FINGERPRINT_CONTEXT = "iris.idempotency.v1"


class Scope(StrEnum):
    """The endpoints that honour the key; a key is per principal and scope."""

    MEMORY_REMEMBER = "memory.remember"  # a member states a memory
    MEMORY_SURFACE_REMEMBER = "memory.surface-remember"  # a surface remembers for one
    MEMORY_TURN = "memory.turn"
    MEMORY_ENTITY_RETIRE = "memory.entity-retire"  # a member forgets everything about one
    SHORT_TERM_WRITE = "short-term.write"
    SHORT_TERM_CONSOLIDATE = "short-term.consolidate"
    CONTINUITY_WRITE = "continuity.token"
    CONSENT_EVENT = "consent.event"
    DATA_RIGHTS_REQUEST = "data-rights.request"
    INSPECTION_OPEN = "inspection.open"


# Scopes whose resources are member content: an erasure of everything the member has
# (a full clear, a data-rights delete of every scope) makes all of these gone.
CONTENT_SCOPES = frozenset(
    {
        Scope.MEMORY_REMEMBER,
        Scope.MEMORY_SURFACE_REMEMBER,
        Scope.MEMORY_TURN,
        Scope.SHORT_TERM_WRITE,
        Scope.SHORT_TERM_CONSOLIDATE,
        Scope.CONTINUITY_WRITE,
    }
)


class Gone(DomainError):
    status_code = 410
    code = "idempotency-resource-gone"
    default_message = (
        "What this idempotency key's request created has since been forgotten or erased; "
        "it is not created again."
    )


# --- Pure: keys and fingerprints ----------------------------------------------------------


def key_problem(key: str) -> str | None:
    """Why `key` is not an acceptable idempotency key, or None: 1..128 printable
    characters without whitespace."""
    if not key:
        return "Give a key of at least one character."
    if len(key) > KEY_MAX_LENGTH:
        return f"At most {KEY_MAX_LENGTH} characters."
    if not key.isprintable() or any(c.isspace() for c in key):
        return "Printable characters only, without spaces."
    return None


def _plain(body: Any) -> Any:
    """Form data as plain lists, so it canonicalises like JSON."""
    if isinstance(body, QueryDict):
        return {name: body.getlist(name) for name in body}
    return body


def canonical_request(
    *, method: str, path: str, body: Any, query: Iterable[tuple[str, str]] = ()
) -> str:
    """One string per logical request: key order and whitespace of the JSON do not
    matter, anything else does (a value, its type, a query parameter, the path)."""
    body_json = canonical_json(_plain(body)).decode("utf-8")
    query_json = canonical_json(sorted([str(k), str(v)] for k, v in query)).decode("utf-8")
    return "\x1f".join((_FINGERPRINT_CONTEXT, method.upper(), path, query_json, body_json))


def request_fingerprint(
    *, method: str, path: str, body: Any, query: Iterable[tuple[str, str]] = ()
) -> str:
    """The keyed digest of `canonical_request`: comparable, not reversible without
    `IRIS_HASH_SECRET`, and holding nothing of the body."""
    return keyed_digest(
        canonical_request(method=method, path=path, body=body, query=query), length=64
    )


def _query_items(request) -> list[tuple[str, str]]:
    params = request.query_params
    return [(name, value) for name in params for value in params.getlist(name)]


# --- The service -----------------------------------------------------------------------------


class Outcome(StrEnum):
    RESERVED = "reserved"  # run the handler
    REPLAY = "replay"  # answer from the completed record
    REUSED = "reused"  # the key was used with another request
    IN_PROGRESS = "in-progress"  # the first request is still running
    GONE = "gone"  # what it created was erased


@dataclass(frozen=True, slots=True)
class Claim:
    outcome: Outcome
    record: IdempotencyRecord | None = None
    # The reservation's id and lease (only the holder completes or releases it).
    lease: uuid.UUID | None = None


def _principal(principal) -> dict[str, Any]:
    if getattr(principal, "is_service", False):
        return {"service_client_id": principal.pk}
    return {"user_id": principal.pk}


def idempotency_reserve(
    *, principal, scope: str, key: str, fingerprint: str, now: datetime | None = None
) -> Claim:
    """Reserve `key` for `principal` on `scope`, committed at once, or say what the key's
    earlier use means for this request."""
    owner = _principal(principal)
    for _ in range(5):
        moment = now or timezone.now()
        lease = uuid.uuid4()
        try:
            with transaction.atomic():
                record = IdempotencyRecord.objects.create(
                    **owner,
                    scope=scope,
                    key=key,
                    fingerprint=fingerprint,
                    lease=lease,
                    created_at=moment,
                )
        except IntegrityError:
            pass
        else:
            return Claim(Outcome.RESERVED, record, lease)
        existing = IdempotencyRecord.objects.filter(**owner, scope=scope, key=key).first()
        if existing is None:
            continue  # released in between: try again
        if existing.created_at <= moment - IDEMPOTENCY_TTL:
            # Expired: the key is free again.
            IdempotencyRecord.objects.filter(pk=existing.pk, lease=existing.lease).delete()
            continue
        if existing.state == IdempotencyRecord.State.GONE:
            return Claim(Outcome.GONE, existing)
        if existing.state == IdempotencyRecord.State.IN_PROGRESS:
            if existing.created_at <= moment - STALE_AFTER:
                taken = IdempotencyRecord.objects.filter(
                    pk=existing.pk, lease=existing.lease, state=IdempotencyRecord.State.IN_PROGRESS
                ).update(lease=lease, fingerprint=fingerprint, created_at=moment)
                if taken:
                    existing.lease, existing.fingerprint = lease, fingerprint
                    existing.created_at = moment
                    return Claim(Outcome.RESERVED, existing, lease)
                continue
            if existing.fingerprint != fingerprint:
                return Claim(Outcome.REUSED, existing)
            return Claim(Outcome.IN_PROGRESS, existing)
        if existing.fingerprint != fingerprint:
            return Claim(Outcome.REUSED, existing)
        return Claim(Outcome.REPLAY, existing)
    return Claim(Outcome.IN_PROGRESS)


def idempotency_complete(
    claim: Claim,
    *,
    status_code: int,
    reference: Mapping[str, Any],
    member_id=None,
    now: datetime | None = None,
) -> bool:
    """Record the answer of a reserved request; False when the reservation was lost."""
    return bool(
        IdempotencyRecord.objects.filter(
            pk=claim.record.pk, lease=claim.lease, state=IdempotencyRecord.State.IN_PROGRESS
        ).update(
            state=IdempotencyRecord.State.COMPLETED,
            status_code=status_code,
            reference=dict(reference),
            member_id=member_id,
            completed_at=now or timezone.now(),
        )
    )


def idempotency_release(claim: Claim) -> None:
    """Give the key back: the request failed or was refused, and a retry runs again."""
    IdempotencyRecord.objects.filter(
        pk=claim.record.pk, lease=claim.lease, state=IdempotencyRecord.State.IN_PROGRESS
    ).delete()


def idempotency_purge_expired(*, now: datetime | None = None) -> dict[str, int]:
    """Forget every key older than `IDEMPOTENCY_TTL`. Idempotent; records a count only."""
    now = now or timezone.now()
    with transaction.atomic():
        count, _ = IdempotencyRecord.objects.filter(created_at__lte=now - IDEMPOTENCY_TTL).delete()
        if count:
            audit_event_append(
                action=AuditAction.IRIS_SITE_IDEMPOTENCY_RECORDS_PURGED,
                policy_id=POLICY_ID,
                actor=Actor.system("idempotency-purge"),
                payload={"idempotency_record_count": count},
                occurred_at=now,
            )
    return {"idempotency_record_count": count}


def _erased(
    *, member_id, mentions: Callable[[str], bool] | None, everything: bool
) -> list[uuid.UUID]:
    rows = IdempotencyRecord.objects.filter(
        member_id=member_id, state=IdempotencyRecord.State.COMPLETED
    ).values_list("pk", "scope", "reference")
    return [
        pk
        for pk, scope, reference in rows
        if (everything and scope in CONTENT_SCOPES)
        or (mentions is not None and mentions(json.dumps(reference, sort_keys=True)))
    ]


def idempotency_records_erase(
    *, member_id, mentions: Callable[[str], bool] | None = None, everything: bool = False
) -> int:
    """Mark gone the member's completed records whose reference `mentions` an erased id
    (or, with `everything`, all those of content scopes): a retry with their key is 410
    from now on, whatever its body, and nothing derived from the write (its fingerprint,
    its reference, the member) stays. Runs in the caller's transaction."""
    doomed = _erased(member_id=member_id, mentions=mentions, everything=everything)
    if doomed:
        IdempotencyRecord.objects.filter(pk__in=doomed).update(
            state=IdempotencyRecord.State.GONE,
            fingerprint="",
            reference={},
            member=None,
            status_code=None,
        )
    return len(doomed)


def idempotency_records_residue(
    *, member_id, mentions: Callable[[str], bool] | None = None, everything: bool = False
) -> int:
    """How many records an erasure like this would still mark gone (0 once it has)."""
    return len(_erased(member_id=member_id, mentions=mentions, everything=everything))


# --- The view decorator --------------------------------------------------------------------


def header_key(request) -> str | None:
    return request.headers.get(HEADER)


def request_body(request) -> Any:
    return request.data


def body_without(*names: str) -> Callable[[Any], Any]:
    """A `body` for `idempotent` that leaves these fields out of the fingerprint (a
    passphrase is never stored, not even as a keyed digest)."""

    def body(request) -> Any:
        data = _plain(request.data)
        if isinstance(data, dict):
            return {k: v for k, v in data.items() if k not in names}
        return data

    return body


def id_reference(response: Response) -> dict[str, Any]:
    """The default reference: the `id` of the resource the answer is."""
    data = getattr(response, "data", None)
    return {"id": str(data["id"])} if isinstance(data, Mapping) and "id" in data else {}


def default_member(request, data, kwargs) -> Any:
    """Whose data it is: the member in the path, else the signed-in member."""
    if kwargs.get("member_id") is not None:
        return kwargs["member_id"]
    if getattr(request.user, "is_member", False):
        return request.user.pk
    return None


def _in_progress() -> Response:
    return Response(
        error_body(
            "idempotency-in-progress",
            "A request with this idempotency key is still being processed; retry shortly.",
        ),
        status=409,
        headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
    )


def idempotent(
    scope: Scope,
    *,
    replay: Callable[..., Any],
    reference: Callable[[Response], Mapping[str, Any]] = id_reference,
    member: Callable[[Any, Any, dict], Any] = default_member,
    key: Callable[[Any], str | None] = header_key,
    body: Callable[[Any], Any] = request_body,
    field: str = HEADER,
):
    """Make a DRF view method (`post`, `put`) honour `Idempotency-Key`.

    `replay(request, reference, **kwargs)` re-renders the first answer (its data, or a
    Response for headers too; the status is always the first one's) from the stored
    `reference` and the current state, or returns None when the resource is gone (then
    410). `reference(response)` picks the ids and codes (never content) out of a 2xx
    answer; `member(request, data, kwargs)` says whose data it is. `key` and `body` say
    where the key and the fingerprinted body come from; `field` names the key in errors.
    Place it above the method's `@extend_schema`: it documents the header and 409/410.
    """
    scope = Scope(scope)

    def decorate(handler):
        @functools.wraps(handler)
        def wrapper(view, request, *args, **kwargs):
            raw = key(request)
            if raw is None:
                return handler(view, request, *args, **kwargs)
            problem = key_problem(raw)
            if problem is not None:
                raise InvalidInput(
                    "The idempotency key is invalid.",
                    code="idempotency-key-invalid",
                    fields={field: [problem]},
                )
            fingerprint = request_fingerprint(
                method=request.method,
                path=request.path,
                query=_query_items(request),
                body=body(request),
            )
            claim = idempotency_reserve(
                principal=request.user, scope=scope, key=raw, fingerprint=fingerprint
            )
            if claim.outcome == Outcome.REUSED:
                raise Conflict(
                    "This idempotency key was used for a different request.",
                    code="idempotency-key-reused",
                    fields={field: ["Already used with a different request."]},
                )
            if claim.outcome == Outcome.IN_PROGRESS:
                return _in_progress()
            if claim.outcome == Outcome.GONE:
                raise Gone()
            if claim.outcome == Outcome.REPLAY:
                replayed = replay(request, claim.record.reference, **kwargs)
                if replayed is None:
                    raise Gone()
                if not isinstance(replayed, Response):
                    replayed = Response(replayed)
                replayed.status_code = claim.record.status_code
                replayed[REPLAYED_HEADER] = "true"
                return replayed
            try:
                response = handler(view, request, *args, **kwargs)
            except BaseException:
                idempotency_release(claim)
                raise
            if not 200 <= response.status_code < 300:
                idempotency_release(claim)
                return response
            data = getattr(response, "data", None)
            try:
                idempotency_complete(
                    claim,
                    status_code=response.status_code,
                    reference=reference(response),
                    member_id=member(request, data, kwargs),
                )
            except DatabaseError:
                # The write stands; the key stays reserved until it goes stale.
                logger.exception("idempotency record not completed (%s)", scope)
            return response

        document_idempotency(wrapper)
        wrapper.idempotency_scope = scope
        return wrapper

    return decorate
