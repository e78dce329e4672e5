"""Delivering change events to webhooks (issue 44, item 4): at least once, in order per
member, signed per the Standard Webhooks specification with its own library.

Each pass (`webhook_deliveries_run`; the task `webhooks.tasks.deliver_webhooks` runs every
minute on the task engine and repeats passes for up to 40 s while they deliver,
`webhook_deliveries_drain`):

1. Every `ChangeEvent` whose consumer has an active endpoint gets a `WebhookDelivery`
   (events since the endpoint was set, and any older one not yet acknowledged).
2. Due deliveries are sent. Per member and endpoint, the oldest pending event goes first:
   a later one waits until it is delivered (or dead). A 2xx marks the delivery delivered
   and the event acknowledged (the member's proof of erasure reads `acknowledged_at`);
   anything else is retried with exponential backoff — 30 s, doubling, at most an hour
   apart — until the delivery is 24 hours old, then it is dead (the console shows
   counts per endpoint; an operator retries them).

Idempotent by event id: `webhook-id` is the event's id, the receiver deduplicates by it.
A delivery's outcome is written in the transaction that locked it for the attempt
(`select_for_update(skip_locked=True)`, PostgreSQL; on SQLite, whose one writer would
wait for the whole attempt, the outcome is written after it alone): a worker killed
mid-attempt leaves the delivery pending as it was, and it is sent again.

A slow or failing endpoint delays only its own deliveries. Per run, endpoints take turns,
one delivery each; an endpoint stops for the run at its first failure, after
`PER_ENDPOINT_SENDS` attempts, or once its attempts took `PER_ENDPOINT_BUDGET`. An
attempt takes at most 5 s (`webhooks.transport`). So another endpoint delays a delivery
by at most one attempt (5 s) per turn ahead of it, at most
`PER_ENDPOINT_BUDGET + 5 s` in the whole run, and a failing endpoint at most 5 s a run.
"""

import contextlib
import json
import time
from collections import defaultdict
from collections.abc import Iterator
from datetime import datetime, timedelta

from django.db import connection, transaction
from django.db.models import Exists, F, OuterRef, Q
from django.utils import timezone
from standardwebhooks.webhooks import Webhook

from iris_site.audit.actions import AuditAction
from iris_site.audit.events import Actor, audit_event_append
from memory.http.changes import ChangeEventSerializer
from memory.models import ChangeEvent
from webhooks.enums import DeliveryState
from webhooks.models import WebhookDelivery, WebhookEndpoint
from webhooks.services import POLICY_ID, signing_secrets
from webhooks.transport import Outcome, post

FIRST_BACKOFF = timedelta(seconds=30)
MAX_BACKOFF = timedelta(hours=1)
RETRY_WINDOW = timedelta(hours=24)
PER_ENDPOINT_SENDS = 50
PER_ENDPOINT_BUDGET = 15.0  # seconds of attempts per endpoint per run
DRAIN_BUDGET = 40.0  # seconds a scheduled run keeps making passes while they deliver
CREATE_BATCH = 5000  # deliveries made per endpoint per run
PLAN_WINDOW = 500  # pending deliveries per endpoint considered per run


def backoff(attempts: int) -> timedelta:
    """The wait after the `attempts`-th failed attempt: 30 s, 60 s, … at most an hour."""
    return min(FIRST_BACKOFF * 2 ** max(attempts - 1, 0), MAX_BACKOFF)


def event_body(event: ChangeEvent) -> bytes:
    """The webhook's body: the event exactly as the feed shows it."""
    data = ChangeEventSerializer(event).data
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def signed_headers(
    endpoint: WebhookEndpoint, *, msg_id: str, body: bytes, now: datetime
) -> dict[str, str]:
    """`webhook-id`, `webhook-timestamp` and `webhook-signature` (one signature per
    secret in use: during a rotation's overlap, the new and the old)."""
    signatures = [
        Webhook(secret).sign(msg_id=msg_id, timestamp=now, data=body)
        for secret in signing_secrets(endpoint, now=now)
    ]
    return {
        "webhook-id": msg_id,
        "webhook-timestamp": str(int(now.timestamp())),
        "webhook-signature": " ".join(signatures),
    }


def _active_endpoints():
    return WebhookEndpoint.objects.filter(
        is_active=True, service_client__is_active=True
    ).select_related("service_client")


def deliveries_create_missing() -> int:
    """A pending delivery for every event of an active endpoint's consumer it lacks."""
    made = 0
    for endpoint in _active_endpoints():
        missing = (
            ChangeEvent.objects.filter(consumer=endpoint.service_client.consumer)
            .filter(Q(occurred_at__gte=endpoint.created_at) | Q(acknowledged_at__isnull=True))
            .exclude(
                Exists(WebhookDelivery.objects.filter(event=OuterRef("pk"), endpoint=endpoint))
            )
            .order_by("id")
            .values_list("id", "member_id")[:CREATE_BATCH]
        )
        rows = [
            WebhookDelivery(event_id=event_id, endpoint=endpoint, member_id=member_id)
            for event_id, member_id in missing
        ]
        made += len(WebhookDelivery.objects.bulk_create(rows, ignore_conflicts=True))
    return made


def _plan(endpoint: WebhookEndpoint, now: datetime) -> list[tuple]:
    """The deliveries this endpoint may send now, in order: per member, its pending
    deliveries oldest event first, from the first while it is due (a later event waits
    behind an earlier one that is not)."""
    pending = (
        WebhookDelivery.objects.filter(endpoint=endpoint, state=DeliveryState.PENDING)
        .order_by("event_id")
        .values_list("id", "member_id", "next_attempt_at")[:PLAN_WINDOW]
    )
    by_member: dict = defaultdict(list)
    held: set = set()
    for pk, member_id, due_at in pending:
        if member_id in held:
            continue
        if due_at > now:
            held.add(member_id)
            continue
        by_member[member_id].append(pk)
    return [(member_id, pk) for member_id, queue in by_member.items() for pk in queue]


def _record(delivery: WebhookDelivery, outcome: Outcome) -> bool:
    """Write an attempt's outcome. True when this attempt made the delivery dead."""
    now = timezone.now()
    attempts = delivery.attempts + 1
    pending = WebhookDelivery.objects.filter(pk=delivery.pk, state=DeliveryState.PENDING)
    if outcome.delivered:
        pending.update(
            state=DeliveryState.DELIVERED,
            attempts=F("attempts") + 1,
            last_status=outcome.status,
            delivered_at=now,
        )
        ChangeEvent.objects.filter(pk=delivery.event_id, acknowledged_at__isnull=True).update(
            acknowledged_at=now
        )
        return False
    if now >= delivery.created_at + RETRY_WINDOW:
        pending.update(
            state=DeliveryState.DEAD, attempts=F("attempts") + 1, last_status=outcome.status
        )
        return True
    pending.update(
        attempts=F("attempts") + 1,
        last_status=outcome.status,
        next_attempt_at=now + backoff(attempts),
    )
    return False


def _send(delivery: WebhookDelivery) -> Outcome:
    body = event_body(delivery.event)
    headers = signed_headers(
        delivery.endpoint, msg_id=str(delivery.event.event_id), body=body, now=timezone.now()
    )
    return post(delivery.endpoint.url, body=body, headers=headers)


def _attempt(delivery_id: int, now: datetime) -> tuple[Outcome, bool] | None:
    """One attempt at one delivery, if it is still pending, due, and not another
    worker's; its outcome written with the lock that claimed it."""
    locking = connection.vendor == "postgresql"
    with transaction.atomic() if locking else contextlib.nullcontext():
        found = WebhookDelivery.objects.select_related("event", "endpoint").filter(
            pk=delivery_id,
            state=DeliveryState.PENDING,
            next_attempt_at__lte=now,
            endpoint__is_active=True,
        )
        if locking:
            found = found.select_for_update(skip_locked=True, of=("self",))
        delivery = found.first()
        if delivery is None:
            return None
        outcome = _send(delivery)
        with transaction.atomic():
            dead = _record(delivery, outcome)
    return outcome, dead


def _turns(plans: dict, now: datetime, counts: dict, dead: dict, failed: set) -> None:
    """Endpoints take turns, one attempt each, until each is done for the run; an
    endpoint that failed is added to `failed`."""
    queues: dict[WebhookEndpoint, Iterator[tuple]] = {e: iter(p) for e, p in plans.items() if p}
    spent: dict = defaultdict(float)
    sent: dict = defaultdict(int)
    # A member whose earlier delivery was not sent (another worker holds it): its later
    # ones wait for the next run.
    passed: set = set()
    while queues:
        for endpoint, queue in list(queues.items()):
            member_id, delivery_id = next(queue, (None, None))
            if delivery_id is None:
                del queues[endpoint]
                continue
            if (endpoint.pk, member_id) in passed:
                continue
            started = time.monotonic()
            result = _attempt(delivery_id, now)
            spent[endpoint] += time.monotonic() - started
            if result is None:
                passed.add((endpoint.pk, member_id))
                continue
            outcome, made_dead = result
            sent[endpoint] += 1
            counts["delivered" if outcome.delivered else "failed"] += 1
            if made_dead:
                dead[endpoint] += 1
            if not outcome.delivered:
                failed.add(endpoint.pk)
            if (
                not outcome.delivered
                or sent[endpoint] >= PER_ENDPOINT_SENDS
                or spent[endpoint] >= PER_ENDPOINT_BUDGET
            ):
                del queues[endpoint]


def webhook_deliveries_run(
    *, now: datetime | None = None, resting: set | None = None
) -> dict[str, int]:
    """Make the missing deliveries, then send the due ones (see the module's doc). The
    endpoints in `resting` (ids) are left alone; one that fails is added to it."""
    resting = set() if resting is None else resting
    counts = {"created": deliveries_create_missing(), "delivered": 0, "failed": 0, "dead": 0}
    now = now or timezone.now()
    plans = {
        endpoint: _plan(endpoint, now)
        for endpoint in _active_endpoints()
        if endpoint.pk not in resting
    }
    dead: dict = defaultdict(int)
    _turns(plans, now, counts, dead, resting)
    for endpoint, count in dead.items():
        counts["dead"] += count
        audit_event_append(
            action=AuditAction.WEBHOOKS_DELIVERIES_DEAD_LETTERED,
            policy_id=POLICY_ID,
            actor=Actor.system("webhooks"),
            payload={"endpoint_id": str(endpoint.pk), "delivery_count": count},
        )
    return counts


def webhook_deliveries_drain(*, budget: float = DRAIN_BUDGET) -> dict[str, int]:
    """The scheduled run: passes (`webhook_deliveries_run`, each fair between endpoints)
    one after another while the last delivered something and `budget` seconds have not
    passed, so a backlog drains at the workers' pace rather than 50 a minute. An endpoint
    that failed rests for the rest of the run: a failing endpoint costs one attempt (at
    most 5 s) a run, as in a single pass."""
    started = time.monotonic()
    totals: dict[str, int] = defaultdict(int)
    resting: set = set()
    while True:
        counts = webhook_deliveries_run(resting=resting)
        for key, value in counts.items():
            totals[key] += value
        if not counts["delivered"] or time.monotonic() - started >= budget:
            return dict(totals)
