"""Issue 44, item 4 and 5b: change events reach exactly their recipients' webhooks, signed
per the Standard Webhooks specification (verified here with its own library), over real
HTTP to a real loopback receiver, by the task as the worker runs it — and survive a
receiver that is down, failing, redirecting, slow or private, and a worker killed
mid-delivery."""

import json
import socket
import time
import uuid
from datetime import datetime, timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from iris_site.audit.events import Actor
from iris_site.errors import InvalidInput
from iris_site.models import AuditEvent, ServiceClient
from memory.models import ChangeEvent
from tests.conftest import http_request
from tests.memory.factories import consenting_member, remember
from tests.memory.test_change_events import COFFEE, Surfaces
from tests.memory.test_full_clear import token_of
from tests.webhooks.factories import endpoint_for, event_for, platform_admin
from tests.webhooks.receiver import Answer
from webhooks import delivery
from webhooks.enums import DeliveryState, FailureKind
from webhooks.models import WebhookDelivery
from webhooks.services import webhook_dead_retry, webhook_endpoint_set, webhook_secret_rotate
from webhooks.tasks import deliver_webhooks
from webhooks.transport import TOTAL_TIMEOUT, address_allowed


def run() -> dict:
    """One run of the task, as the worker runs it."""
    return deliver_webhooks.call()


def make_due() -> None:
    """Time passes: every pending delivery's next attempt is due."""
    WebhookDelivery.objects.filter(state=DeliveryState.PENDING).update(
        next_attempt_at=timezone.now() - timedelta(seconds=1)
    )


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def verified(secret: str, request) -> dict:
    return Webhook(secret).verify(request.body, request.headers)


@pytest.mark.django_db(transaction=True)
def instant(event: dict) -> datetime:
    return datetime.fromisoformat(event["occurred_at"])


def test_a_forgotten_memory_reaches_the_webhooks_of_its_recipients_and_no_other(
    live_server, webhook_settings, receivers
):
    member = consenting_member()
    coffee = remember(member, subject="coffee", body=COFFEE).entry
    surfaces = Surfaces(live_server, member)
    hooks, secrets = {}, {}
    for consumer in ("assistant", "shell", "tara"):
        hooks[consumer] = receivers()
        client = ServiceClient.objects.get(consumer=consumer)
        _, secrets[consumer] = endpoint_for(hooks[consumer].url, client=client)
    assert str(coffee.pk) in surfaces.recall("assistant", "coffee")
    assert str(coffee.pk) in surfaces.recall("shell", "coffee black")
    forgot = http_request(
        f"{live_server.url}/api/v1/me/memories/{coffee.pk}/forget/",
        method="POST",
        token=token_of(member),
    )
    assert forgot.status == 200, forgot.body

    counts = run()

    assert counts["delivered"] == 2 and counts["failed"] == 0
    for consumer in ("assistant", "shell"):
        [request] = hooks[consumer].requests
        event = verified(secrets[consumer], request)  # the specification's own verifier
        assert event["type"] == "memory.forgotten" and event["entry_ids"] == [str(coffee.pk)]
        assert request.headers["webhook-id"] == event["id"]
        assert COFFEE not in request.body.decode() and "coffee" not in request.body.decode()
        # the same event as the feed shows it (read through the Python client, which
        # writes a time back as +00:00 where the wire said Z: the same instant)
        [fed] = surfaces.feed(consumer)
        assert {**fed, "occurred_at": instant(fed)} == {**event, "occurred_at": instant(event)}
        with pytest.raises(WebhookVerificationError):
            verified(secrets["tara"], request)  # another client's secret does not verify
    assert hooks["tara"].requests == []  # never given it: never told of it
    assert not ChangeEvent.objects.filter(acknowledged_at__isnull=True).exists()
    assert run()["delivered"] == 0  # nothing sent twice


@pytest.mark.django_db
def test_a_receiver_down_then_up_is_delivered_on_a_later_run(webhook_settings, receivers):
    port = free_port()
    _, secret = endpoint_for(f"http://127.0.0.1:{port}/hook")
    event_for(uuid.uuid4())
    assert run()["failed"] == 1
    item = WebhookDelivery.objects.get()
    assert (item.state, item.attempts, item.last_status) == ("pending", 1, FailureKind.REFUSED)
    assert item.next_attempt_at > timezone.now() + timedelta(seconds=20)  # backoff

    receiver = receivers(port=port)
    assert run()["delivered"] == 0  # not due yet
    make_due()
    assert run()["delivered"] == 1
    item.refresh_from_db()
    assert (item.state, item.attempts, item.last_status) == ("delivered", 2, "204")
    verified(secret, receiver.requests[0])
    assert ChangeEvent.objects.get().acknowledged_at == item.delivered_at


@pytest.mark.django_db
def test_a_5xx_then_a_2xx_is_delivered_and_the_attempts_are_counted(webhook_settings, receivers):
    receiver = receivers(Answer(503), Answer(500), Answer(200))
    endpoint_for(receiver.url)
    event_for(uuid.uuid4())
    for status in ("503", "500"):
        run()
        assert WebhookDelivery.objects.get().last_status == status
        make_due()
    run()
    item = WebhookDelivery.objects.get()
    assert (item.state, item.attempts, item.last_status) == ("delivered", 3, "200")
    assert len(set(receiver.ids())) == 1 and len(receiver.ids()) == 3  # one id, three tries


@pytest.mark.django_db
def test_a_redirect_is_a_failure_and_is_not_followed(webhook_settings, receivers):
    elsewhere = receivers()
    receiver = receivers(Answer(307, location=elsewhere.url))
    endpoint_for(receiver.url)
    event_for(uuid.uuid4())
    run()
    item = WebhookDelivery.objects.get()
    assert (item.state, item.last_status) == ("pending", FailureKind.REDIRECT)
    assert elsewhere.connections == 0 and elsewhere.requests == []


@pytest.mark.django_db
def test_a_response_beyond_the_cap_is_too_large(webhook_settings, receivers):
    receiver = receivers(Answer(200, body=b"x" * (70 * 1024)))
    endpoint_for(receiver.url)
    event_for(uuid.uuid4())
    run()
    assert WebhookDelivery.objects.get().last_status == FailureKind.TOO_LARGE
    assert ChangeEvent.objects.get().acknowledged_at is None


@pytest.mark.django_db
def test_a_private_address_not_allow_listed_is_refused_without_connecting(
    webhook_settings, receivers
):
    receiver = receivers()
    endpoint_for(receiver.url)
    webhook_settings.IRIS_WEBHOOK_ALLOWED_HOSTS = []
    event_for(uuid.uuid4())
    run()
    assert WebhookDelivery.objects.get().last_status == FailureKind.BLOCKED
    assert receiver.connections == 0
    for address in ("127.0.0.1", "10.1.2.3", "192.168.0.9", "169.254.169.254", "::1"):
        assert not address_allowed(address), address
    assert not address_allowed("::ffff:127.0.0.1") and not address_allowed("100.64.0.1")
    assert address_allowed("93.184.215.14") and address_allowed("2606:4700::1111")


@pytest.mark.django_db
def test_outside_debug_only_https_is_accepted(settings):
    settings.DEBUG = False
    client = ServiceClient.objects.create(consumer="assistant", label="https-only")
    actor = Actor.of(platform_admin())
    for url in ("http://hooks.example.com/x", "ftp://hooks.example.com/", "https://u:p@x.test/"):
        with pytest.raises(InvalidInput):
            webhook_endpoint_set(service_client=client, url=url, actor=actor)
    endpoint, secret = webhook_endpoint_set(
        service_client=client, url="https://hooks.example.com/iris", actor=actor
    )
    assert secret.startswith("whsec_") and secret not in endpoint.secret_encrypted
    audit = AuditEvent.objects.filter(action="webhooks.endpoint.set").latest("sequence")
    assert audit.payload["host"] == "hooks.example.com" and secret not in json.dumps(audit.payload)


@pytest.mark.django_db
def test_per_member_order_an_earlier_pending_event_holds_later_ones_back(
    webhook_settings, receivers
):
    receiver = receivers(Answer(503), Answer(204))
    endpoint_for(receiver.url)
    first, second = uuid.uuid4(), uuid.uuid4()
    event_for(first)
    event_for(first)
    run()  # the member's first event fails
    event_for(second)
    run()  # its second waits behind the first; another member's goes
    ids = {e.pk: str(e.event_id) for e in ChangeEvent.objects.order_by("id")}
    one, two, other = ids.values()
    assert receiver.ids() == [one, other]
    make_due()
    run()
    assert receiver.ids() == [one, other, one, two]


@pytest.mark.django_db
def test_a_slow_receiver_does_not_hold_back_another_endpoint_beyond_the_bound(
    webhook_settings, receivers
):
    slow = receivers(Answer(204, sleep=TOTAL_TIMEOUT + 3))
    fast = receivers()
    endpoint_for(slow.url, consumer="assistant")
    endpoint_for(fast.url, consumer="shell")
    for _ in range(3):
        event_for(uuid.uuid4(), consumer="assistant")
        event_for(uuid.uuid4(), consumer="shell")

    started = time.time()
    counts = run()
    took = time.time() - started

    assert counts == {"created": 6, "delivered": 3, "failed": 1, "dead": 0}
    assert len(slow.requests) == 1  # a failing endpoint is tried once a run
    timed_out = WebhookDelivery.objects.filter(endpoint__service_client__consumer="assistant")
    assert timed_out.filter(last_status=FailureKind.TIMEOUT).count() == 1
    # the stated bound: one attempt of the slow endpoint (at most 5 s) ahead of the fast
    assert all(r.at - started <= TOTAL_TIMEOUT + 1.5 for r in fast.requests)
    assert took <= TOTAL_TIMEOUT + 2


@pytest.mark.django_db
def test_a_worker_killed_mid_delivery_loses_nothing(webhook_settings, receivers, monkeypatch):
    receiver = receivers()
    endpoint_for(receiver.url)
    event_for(uuid.uuid4())
    record = delivery._record

    def killed(*args, **kwargs):
        raise SystemExit("the worker died after the POST, before recording it")

    monkeypatch.setattr(delivery, "_record", killed)
    with pytest.raises(SystemExit):
        run()
    item = WebhookDelivery.objects.get()
    assert (item.state, item.attempts) == ("pending", 0)
    assert ChangeEvent.objects.get().acknowledged_at is None

    monkeypatch.setattr(delivery, "_record", record)
    run()  # recovered: sent again, the receiver dedupes by webhook-id
    [sent, resent] = receiver.ids()
    assert sent == resent == str(ChangeEvent.objects.get().event_id)
    item.refresh_from_db()
    acknowledged = ChangeEvent.objects.get().acknowledged_at
    assert (item.state, item.attempts) == ("delivered", 1) and acknowledged is not None
    run()
    assert len(receiver.requests) == 2
    assert ChangeEvent.objects.get().acknowledged_at == acknowledged  # acknowledged once


@pytest.mark.django_db
def test_during_a_rotations_overlap_the_old_secret_still_verifies(webhook_settings, receivers):
    receiver = receivers()
    endpoint, old = endpoint_for(receiver.url)
    new = webhook_secret_rotate(endpoint=endpoint, actor=Actor.of(platform_admin()))
    event_for(uuid.uuid4())
    run()
    [request] = receiver.requests
    assert len(request.headers["webhook-signature"].split(" ")) == 2
    assert verified(old, request) == verified(new, request)

    # the overlap ends: only the new secret signs
    endpoint.refresh_from_db()
    endpoint.previous_secret_expires_at = timezone.now() - timedelta(seconds=1)
    endpoint.save()
    event_for(uuid.uuid4())
    run()
    latest = receiver.requests[-1]
    assert verified(new, latest)["type"] == "memory.forgotten"
    with pytest.raises(WebhookVerificationError):
        verified(old, latest)
    rotated = AuditEvent.objects.get(action="webhooks.endpoint.secret_rotated")
    assert new not in json.dumps(rotated.payload) and old not in json.dumps(rotated.payload)


@pytest.mark.django_db
def test_a_day_of_failures_is_dead_counted_on_the_console_and_retried(webhook_settings, receivers):
    port = free_port()
    endpoint, _ = endpoint_for(f"http://127.0.0.1:{port}/hook")
    member = uuid.uuid4()
    event_for(member)
    run()
    WebhookDelivery.objects.update(created_at=timezone.now() - timedelta(hours=24, minutes=1))
    make_due()
    assert run()["dead"] == 1
    item = WebhookDelivery.objects.get()
    assert (item.state, item.attempts) == ("dead", 2)
    dead_audit = AuditEvent.objects.get(action="webhooks.deliveries.dead_lettered")
    assert dead_audit.payload == {"endpoint_id": str(endpoint.pk), "delivery_count": 1}
    assert run()["failed"] == 0  # dead is not retried by itself

    admin = platform_admin()
    console = Client()
    console.force_login(admin)
    page = console.get(reverse("console:webhooks"))
    assert page.status_code == 200
    html = page.content.decode()
    assert 'data-dead="1"' in html and str(member) not in html
    assert str(ChangeEvent.objects.get().event_id) not in html

    receiver = receivers(port=port)
    retried = console.post(reverse("console:webhooks-retry", args=[endpoint.pk]))
    assert retried.status_code == 302
    assert WebhookDelivery.objects.get().state == "pending"
    assert run()["delivered"] == 1 and len(receiver.requests) == 1
    assert webhook_dead_retry(endpoint=endpoint, actor=Actor.of(admin)) == 0
