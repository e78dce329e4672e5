"""Token writes through the service: last-writer-wins by server time, the
"also playing" notice, the writing client recorded at write, the read gate's token rule
and its SQL twin, and the audit of every write."""

import itertools
import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from continuity.contracts import token_parse
from continuity.enums import WriteOutcome
from continuity.models import ContinuationToken, ContinuityNotice
from continuity.policy import NOTICE_RETENTION
from continuity.selectors import (
    continuation_cards,
    continuation_token_get,
    continuation_token_readable,
    continuation_token_recent,
    continuity_cross_device_grant_id,
    member_token_reader,
    token_item,
)
from continuity.services import (
    continuation_token_write,
    continuity_notices_deliver,
    continuity_purge_expired,
)
from iris_site.audit.events import Actor
from iris_site.errors import InvalidInput, NotFound, NotPermitted
from memory.access.capabilities import capabilities_for
from memory.access.gate import MemberState, Reader, ReaderKind, decide
from tests.consent.factories import record
from tests.continuity.factories import (
    T0,
    assert_no_free_text,
    audit_events,
    token_body,
    write,
)
from tests.iris_site.factories import MemberFactory, ServiceClientFactory, TenantFactory

pytestmark = pytest.mark.django_db

LAPTOP, PHONE = "laptop-1", "phone-1"
CLIENT_STRINGS = (LAPTOP, PHONE, "chapter-4", "chapter-5", "00:14:32", "00:14:35", "session:s-1")


def test_a_first_write_creates_the_slot_and_records_an_audit_event():
    # given
    member = MemberFactory()
    # when
    result = write(member, now=T0, idempotency_key="k-1")
    # then
    assert result.outcome == WriteOutcome.CREATED
    token = ContinuationToken.objects.get(member=member)
    assert (token.surface, token.anchor_id, token.cursor, token.revision) == (
        "tara",
        "chapter-4",
        "00:14:32",
        1,
    )
    assert token.recorded_at == T0
    assert result.answer["id"] == str(token.pk) and result.answer["outcome"] == "created"
    [event] = audit_events("continuity.token.written", member)
    assert event.payload["slot_id"] == str(token.pk)
    assert event.payload["outcome"] == "created" and event.payload["revision"] == 1
    assert event.payload["surface"] == "tara" and event.payload["posture"] == "listening"
    assert_no_free_text(event, *CLIENT_STRINGS, "k-1")


def test_two_devices_racing_one_wins_by_server_time_and_the_other_gets_a_notice():
    # given: the laptop pauses, the phone resumes a second later
    member = MemberFactory()
    laptop = write(member, now=T0, device_id=LAPTOP, posture="paused")
    # when
    phone = write(
        member,
        now=T0 + timedelta(seconds=1),
        device_id=PHONE,
        anchor_ref={"surface": "tara", "anchor_id": "chapter-4", "cursor": "00:14:35"},
    )
    # then: one slot, the phone's token, revision 2; the laptop's place is in the notice
    assert phone.outcome == WriteOutcome.REPLACED
    token = ContinuationToken.objects.get(member=member)
    assert (token.device_id, token.cursor, token.revision) == (PHONE, "00:14:35", 2)
    notice = ContinuityNotice.objects.get(member=member)
    assert notice.device_id == LAPTOP and notice.delivered_at is None
    assert str(notice.superseded_token_id) == laptop.answer["token_id"]
    assert (notice.superseded_cursor, notice.superseded_posture) == ("00:14:32", "paused")
    assert notice.winning_device_id == PHONE
    [raised] = audit_events("continuity.notice.raised", member)
    assert raised.payload["notice_id"] == str(notice.pk)
    assert raised.payload["winning_token_id"] == phone.answer["token_id"]
    assert_no_free_text(raised, *CLIENT_STRINGS)
    assert [e.payload["outcome"] for e in audit_events("continuity.token.written", member)] == [
        "created",
        "replaced",
    ]


def test_a_hand_off_outside_the_window_raises_no_notice():
    member = MemberFactory()
    write(member, now=T0, device_id=LAPTOP)
    write(member, now=T0 + timedelta(minutes=30), device_id=PHONE)
    assert not ContinuityNotice.objects.exists()
    assert audit_events("continuity.notice.raised", member) == []


def test_a_write_older_by_server_time_loses_and_its_device_is_told():
    member = MemberFactory()
    write(member, now=T0 + timedelta(seconds=5), device_id=LAPTOP)
    late = write(
        member,
        now=T0,
        device_id=PHONE,
        anchor_ref={"surface": "tara", "anchor_id": "chapter-5", "cursor": "00:00:10"},
    )
    assert late.outcome == WriteOutcome.SUPERSEDED and late.answer["outcome"] == "superseded"
    token = ContinuationToken.objects.get(member=member)
    assert (token.device_id, token.anchor_id, token.revision) == (LAPTOP, "chapter-4", 1)
    notice = ContinuityNotice.objects.get(member=member)
    assert notice.device_id == PHONE and notice.superseded_anchor_id == "chapter-5"
    [_, written] = audit_events("continuity.token.written", member)
    assert written.payload["outcome"] == "superseded"


def test_repeated_losses_keep_one_pending_notice_per_device_and_slot():
    member = MemberFactory()
    write(member, now=T0, device_id=LAPTOP)
    write(member, now=T0 + timedelta(seconds=1), device_id=PHONE)
    write(member, now=T0 + timedelta(seconds=2), device_id=LAPTOP)
    write(member, now=T0 + timedelta(seconds=3), device_id=PHONE)
    pending = ContinuityNotice.objects.filter(member=member, delivered_at__isnull=True)
    assert sorted(pending.values_list("device_id", flat=True)) == [LAPTOP, PHONE]
    assert ContinuationToken.objects.get(member=member).revision == 4


def test_notices_are_delivered_once_to_their_device():
    member = MemberFactory()
    write(member, now=T0, device_id=LAPTOP)
    write(member, now=T0 + timedelta(seconds=1), device_id=PHONE)
    actor = Actor.of(member)
    assert continuity_notices_deliver(member_id=member.pk, device_id=PHONE, actor=actor) == []
    [notice] = continuity_notices_deliver(member_id=member.pk, device_id=LAPTOP, actor=actor)
    assert notice.delivered_at is not None
    assert continuity_notices_deliver(member_id=member.pk, device_id=LAPTOP, actor=actor) == []
    [delivered] = audit_events("continuity.notice.delivered", member)
    assert delivered.payload["notice_ids"] == [str(notice.pk)]
    assert_no_free_text(delivered, *CLIENT_STRINGS)


def test_the_writing_client_is_recorded_with_each_winning_write():
    # given
    member = MemberFactory()
    laptop_app, phone_app = (
        ServiceClientFactory(consumer="tara"),
        ServiceClientFactory(consumer="tara"),
    )
    # when / then: the winner's client is the slot's, a lost write leaves it
    write(member, now=T0, device_id=LAPTOP, client=laptop_app)
    assert ContinuationToken.objects.get(member=member).written_by_client == laptop_app
    write(member, now=T0 + timedelta(seconds=1), device_id=PHONE, client=phone_app)
    assert ContinuationToken.objects.get(member=member).written_by_client == phone_app
    write(member, now=T0, device_id=LAPTOP, client=laptop_app)  # older: superseded
    assert ContinuationToken.objects.get(member=member).written_by_client == phone_app
    # and a system write records none
    write(member, scope_key="session:seed")
    assert ContinuationToken.objects.get(scope_key="session:seed").written_by_client is None


def test_a_client_is_given_only_the_notices_of_its_own_lost_writes():
    # given: the laptop's write loses to the phone's; another client names the laptop
    member = MemberFactory()
    laptop_app, phone_app = (
        ServiceClientFactory(consumer="tara"),
        ServiceClientFactory(consumer="tara"),
    )
    write(member, now=T0, device_id=LAPTOP, client=laptop_app)
    write(member, now=T0 + timedelta(seconds=1), device_id=PHONE, client=phone_app)
    assert ContinuityNotice.objects.get(member=member).device_client == laptop_app
    # when
    impostor = continuity_notices_deliver(
        member_id=member.pk,
        device_id=LAPTOP,
        reader_client_id=phone_app.pk,
        actor=Actor.of(phone_app),
    )
    own = continuity_notices_deliver(
        member_id=member.pk,
        device_id=LAPTOP,
        reader_client_id=laptop_app.pk,
        actor=Actor.of(laptop_app),
    )
    # then
    assert impostor == []
    assert [n.superseded_token_id for n in own] == [
        ContinuityNotice.objects.get(member=member).superseded_token_id
    ]
    assert len(audit_events("continuity.notice.delivered", member)) == 1


def test_a_surface_writes_only_its_own_tokens():
    member = MemberFactory()
    with pytest.raises(NotPermitted) as caught:
        write(member, consumer="tara", surface="psyche")
    assert caught.value.code == "surface-not-yours"
    assert not ContinuationToken.objects.exists()


def test_the_token_must_belong_to_the_member():
    member = MemberFactory()
    contract = token_parse(token_body(MemberFactory().pk))
    with pytest.raises(InvalidInput) as caught:
        continuation_token_write(
            member=member, contract=contract, consumer="tara", actor=Actor.system()
        )
    assert list(caught.value.fields) == ["user_id"]


def test_a_tenant_context_must_be_one_of_the_members_tenants():
    tenant, other = TenantFactory(), TenantFactory()
    member = MemberFactory(tenants=[tenant])
    context = {"surface": "tara", "session_id": "s-1", "tenant_id": str(tenant.pk)}
    result = write(member, surface_context=context)
    assert ContinuationToken.objects.get(pk=result.answer["id"]).tenant_id == tenant.pk
    assert audit_events("continuity.token.written", member)[0].target_tenant_id == tenant.pk
    with pytest.raises(NotFound):
        write(member, surface_context={**context, "tenant_id": str(other.pk)}, scope_key="s:2")


# --- the cross-device consent guard -------------------------------------------------------


def as_service(member, client, device=None) -> dict:
    """Selector arguments for `client` reading `member`'s tokens on `device`."""
    reader = Reader(
        kind=ReaderKind.SERVICE,
        member_id=str(member.pk),
        capabilities=capabilities_for(client.consumer),
        client_id=str(client.pk),
        device_id=device,
    )
    return {"reader": reader}


def as_browser(member) -> dict:
    return {"reader": member_token_reader(member.pk)}


def sensitive(member, grant_id, **overrides):
    return write(
        member,
        surface="psyche",
        device_id=PHONE,
        sensitive_categories=["mental_health"],
        cross_device_consent_id=str(grant_id),
        **overrides,
    )


def test_a_sensitive_token_must_name_the_members_cross_device_grant_in_force():
    member, stranger = MemberFactory(), MemberFactory()
    others_grant = record(stranger, "cross_device").event
    with pytest.raises(InvalidInput) as caught:
        sensitive(member, others_grant.pk)
    assert caught.value.code == "cross-device-consent-not-active"
    assert list(caught.value.fields) == ["cross_device_consent_id"]
    own_other_type = record(member, "category:mental_health").event
    with pytest.raises(InvalidInput):
        sensitive(member, own_other_type.pk)
    grant = record(member, "cross_device").event
    assert sensitive(member, grant.pk).outcome == WriteOutcome.CREATED
    record(member, "cross_device", kind="withdrawal")
    with pytest.raises(InvalidInput):
        sensitive(member, grant.pk, scope_key="session:s-2")


def test_withdrawal_hides_sensitive_tokens_from_other_devices_at_once(
    django_capture_on_commit_callbacks,
):
    # given: a sensitive Psyche token written by the phone's app under a cross-device grant
    member = MemberFactory()
    phone_app, shell = (
        ServiceClientFactory(consumer="psyche"),
        ServiceClientFactory(consumer="shell"),
    )
    grant = record(member, "cross_device").event
    token_id = sensitive(member, grant.pk, client=phone_app).answer["id"]
    write(member, scope_key="session:plain", device_id=PHONE)  # an ordinary token
    laptop = as_service(member, shell, LAPTOP)
    phone = as_service(member, phone_app, PHONE)
    assert len(continuation_token_recent(member_id=member.pk, **laptop)) == 2
    assert continuation_token_get(member_id=member.pk, token_id=token_id, **laptop)
    # when
    with django_capture_on_commit_callbacks(execute=True):
        withdrawal = record(member, "cross_device", kind="withdrawal").event
    # then: gone for the laptop and the browser, still there on the phone that wrote it
    visible = continuation_token_recent(member_id=member.pk, **laptop)
    assert [t.scope_key for t in visible] == ["session:plain"]
    assert len(continuation_token_recent(member_id=member.pk, **as_browser(member))) == 1
    with pytest.raises(NotFound):
        continuation_token_get(member_id=member.pk, token_id=token_id, **laptop)
    assert continuation_token_get(member_id=member.pk, token_id=token_id, **phone)
    # naming the phone's device id does not make another client the phone
    with pytest.raises(NotFound):
        continuation_token_get(
            member_id=member.pk, token_id=token_id, **as_service(member, shell, PHONE)
        )
    assert [g.surface for g in continuation_cards(member_id=member.pk)] == ["tara"]
    [ended] = audit_events("continuity.cross_device.ended", member)
    assert ended.payload == {
        "consent_event_id": str(withdrawal.pk),
        "kind": "withdrawal",
        "confined_token_count": 1,
    }
    # a fresh grant does not revive tokens written under the withdrawn one
    record(member, "cross_device")
    assert len(continuation_token_recent(member_id=member.pk, **laptop)) == 1


def test_other_consent_endings_are_not_continuitys_business(django_capture_on_commit_callbacks):
    member = MemberFactory()
    record(member, "data_storage")
    with django_capture_on_commit_callbacks(execute=True):
        record(member, "data_storage", kind="withdrawal")
    assert audit_events("continuity.cross_device.ended", member) == []


def test_an_expired_grant_no_longer_carries_tokens_across():
    member = MemberFactory()
    phone_app = ServiceClientFactory(consumer="psyche")
    ends = timezone.now() + timedelta(days=1)
    grant = record(member, "cross_device", valid_until=ends).event
    sensitive(member, grant.pk, client=phone_app)
    later = ends + timedelta(seconds=1)
    assert continuity_cross_device_grant_id(member_id=member.pk, now=later) is None
    laptop = as_service(member, ServiceClientFactory(consumer="shell"), LAPTOP)
    assert continuation_token_recent(member_id=member.pk, now=later, **laptop) == []
    assert continuation_token_recent(
        member_id=member.pk, now=later, **as_service(member, phone_app, PHONE)
    )


def test_the_sql_guard_is_the_twin_of_the_read_gates_token_rule():
    """Every combination of a token (sensitive or not; written by client A, B or none;
    on device 1 or 2; naming the grant in force, an ended one or none) and a service
    reader (client A or B; device 1, 2 or none), with and without the grant in force: the
    SQL guard returns exactly what `memory.access.gate.decide` lets through. The member's
    browser gets only what the grant carries."""
    member = MemberFactory()
    client_a, client_b = (
        ServiceClientFactory(consumer="psyche"),
        ServiceClientFactory(consumer="shell"),
    )
    ended = record(member, "cross_device").event
    record(member, "cross_device", kind="withdrawal")
    current = record(member, "cross_device").event
    writers = {None: None, "a": client_a, "b": client_b}
    tokens = []
    for number, (is_sensitive, writer, device, names) in enumerate(
        itertools.product([False, True], writers, [LAPTOP, PHONE], ["current", "ended", None])
    ):
        if is_sensitive and names is None:
            continue  # refused by the contract and a check constraint
        consent = {"current": current.pk, "ended": ended.pk, None: None}[names]
        tokens.append(
            ContinuationToken.objects.create(
                member=member,
                surface="psyche",
                scope_key=f"session:s-{number}",
                token_id=uuid.uuid4(),
                device_id=device,
                written_by_client=writers[writer],
                anchor_id="a-1",
                cursor="0",
                posture="listening",
                sensitive_categories=["mental_health"] if is_sensitive else [],
                is_sensitive=is_sensitive,
                cross_device_consent_id=consent,
                idempotency_key=f"k-{number}",
                last_updated_at=T0,
                recorded_at=T0,
                created_at=T0,
            )
        )
    for grant_in_force in (True, False):
        if not grant_in_force:
            record(member, "cross_device", kind="withdrawal")
        state = MemberState(
            member_id=str(member.pk),
            consent_types=frozenset(),
            categories=frozenset(),
            cross_device_grant_id=str(current.pk) if grant_in_force else None,
        )
        for client, device in itertools.product([client_a, client_b], [LAPTOP, PHONE, None]):
            reads = as_service(member, client, device)
            found = set(
                continuation_token_readable(member_id=member.pk, **reads).values_list(
                    "pk", flat=True
                )
            )
            allowed = {
                t.pk for t in tokens if decide(token_item(t), reads["reader"], state, T0) is None
            }
            assert found == allowed, (grant_in_force, client, device)
        # the member's browser is never the writing device: only the grant carries
        browser = set(
            continuation_token_readable(member_id=member.pk, **as_browser(member)).values_list(
                "pk", flat=True
            )
        )
        grant = str(current.pk) if grant_in_force else None
        assert browser == {
            t.pk
            for t in tokens
            if not t.is_sensitive or (grant and str(t.cross_device_consent_id) == grant)
        }
    # the combinations are not vacuous: each side of the rule is exercised
    assert any(t.is_sensitive and t.written_by_client for t in tokens)


# --- reads, cards, housekeeping -----------------------------------------------------------


def test_recent_tokens_are_the_most_recent_by_server_time_capped_at_the_limit():
    member = MemberFactory()
    for minute in range(7):
        write(member, now=T0 + timedelta(minutes=minute), scope_key=f"session:s-{minute}")
    browser = as_browser(member)
    recent = continuation_token_recent(member_id=member.pk, **browser)
    assert [t.scope_key for t in recent] == [f"session:s-{m}" for m in (6, 5, 4, 3, 2)]
    assert len(continuation_token_recent(member_id=member.pk, limit=50, **browser)) == 7
    assert len(continuation_token_recent(member_id=member.pk, limit=500, **browser)) == 7
    assert continuation_token_recent(member_id=MemberFactory().pk, **browser) == []


def test_cards_group_recent_tokens_by_surface_most_recent_surface_first():
    member = MemberFactory()
    write(member, now=T0, surface="nisaba", scope_key="notebook:n-1", posture="reading")
    write(member, now=T0 + timedelta(minutes=1), scope_key="session:a")
    write(member, now=T0 + timedelta(minutes=2), scope_key="session:b")
    groups = continuation_cards(member_id=member.pk)
    assert [(g.surface, g.label, len(g.cards)) for g in groups] == [
        ("tara", "Tara", 2),
        ("nisaba", "Nisaba", 1),
    ]
    assert groups[1].cards[0].posture_label == "Reading"
    assert continuation_cards(member_id=member.pk, per_surface=1)[0].cards[0].anchor_id


def test_housekeeping_forgets_delivered_notices():
    member = MemberFactory()
    write(member, now=T0, device_id=LAPTOP)
    write(member, now=T0 + timedelta(seconds=1), device_id=PHONE)
    continuity_notices_deliver(
        member_id=member.pk, device_id=LAPTOP, actor=Actor.system(), now=T0 + timedelta(seconds=2)
    )
    assert continuity_purge_expired(now=T0 + timedelta(hours=1)) == {"notice_count": 0}
    assert continuity_purge_expired(now=T0 + NOTICE_RETENTION + timedelta(minutes=1)) == {
        "notice_count": 1
    }
    [purged] = audit_events("continuity.housekeeping.purged")
    assert purged.payload == {"notice_count": 1}
    assert ContinuationToken.objects.filter(member=member).count() == 1  # the place stays
