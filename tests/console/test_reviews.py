"""Retention reviews in the console (/console/reviews/): the sweep turns each review-due
memory (operator-copilot, tenant, crisis past its window) into one open review, once; an
admin or trust & safety operator decides it on metadata — keep (due again a window
later), summarize (a summary through the write path, the raw entry erased through
`memory_erase`) or delete (`memory_erase`, after a confirmation); support and legal are
refused; a tenant-bound operator sees only their own tenant's memory (as an inspection
would let them read). Every decision is
audited with ids only, and the page never shows the memory's text."""

import uuid
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from console.reviews import home_section
from hierarchy.models import ReconfirmRequest
from iris_site.enums import OperatorRole
from iris_site.errors import PolicyRefusal
from iris_site.models import AuditEvent
from memory.enums import Lifecycle
from memory.forgetting.erasure import FORGOTTEN_BODY, memory_erasure_residue
from memory.models import MemoryEntry, MemoryRevision, RetentionReview
from memory.sweeps.retention import retention_sweep
from memory.sweeps.reviews import retention_review_decide
from tests.iris_site.factories import OperatorFactory, TenantFactory
from tests.memory.factories import assert_no_audit_mentions, consenting_member, remember

pytestmark = pytest.mark.django_db

INDEX = "/console/reviews/"
RECONFIRM = "/console/reviews/reconfirm/"
DAY = timedelta(days=1)
MARKER = "zanzibar-quokka"
COPILOT_BODY = f"Asked about exports of the {MARKER} archive."
TENANT_BODY = f"Finished module 3 of the {MARKER} course. Wants the next one soon."


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def messages_of(response) -> str:
    return " ".join(str(m) for m in response.context["messages"])


def copilot_note(member, body=COPILOT_BODY):
    return remember(
        member,
        category="other",
        subject="ticket",
        body=body,
        origin="operator-copilot",
        scope={"kind": "operator-copilot", "operator_id": str(uuid.uuid4())},
    ).entry


def tenant_memory(member, tenant, body=TENANT_BODY):
    return remember(
        member,
        category="work",
        subject="course",
        body=body,
        scope={"kind": "tenant", "tenant_id": str(tenant.pk)},
    ).entry


def swept(days: int):
    return retention_sweep(now=timezone.now() + days * DAY)


def review_of(entry) -> RetentionReview:
    return RetentionReview.objects.get(entry=entry, state="open")


def decide_url(review) -> str:
    return f"{INDEX}{review.pk}/decide/"


def no_text_left(member, entry, texts, *, summary=None) -> None:
    """The raw entry's text is gone from every content store and from the entry itself;
    only the summary (when one was written, on purpose) still carries it."""
    entry = MemoryEntry.objects.get(pk=entry.pk)
    assert entry.lifecycle == Lifecycle.TOMBSTONED
    assert entry.body == FORGOTTEN_BODY and entry.subject == ""
    residue = memory_erasure_residue(
        member_id=member.pk, entry_ids=[str(entry.pk)], texts=texts, purge=False
    )
    # the summary repeats it on purpose: another entry, outside the erasure's extent
    assert residue == {}
    # bodies are sealed at rest: read them opened, and search the plaintext
    holding = [
        row
        for row in MemoryEntry.objects.filter(member=member)
        if MARKER.casefold() in str(row.body).casefold()
    ]
    assert holding == ([summary] if summary else [])
    for revision in MemoryRevision.objects.filter(entry=entry):
        assert MARKER not in str(revision.content)


# --- the sweep ------------------------------------------------------------------------------


def test_the_sweep_opens_one_review_per_due_entry_and_is_idempotent():
    tenant = TenantFactory()
    member = consenting_member(tenants=[tenant])
    copilot = copilot_note(member)
    in_tenant = tenant_memory(member, tenant)
    profile = remember(member, subject="tea", body="I like green tea.").entry

    first, again = swept(15), swept(15)
    later = swept(366)

    assert (first.reviews_flagged, again.reviews_flagged, later.reviews_flagged) == (1, 0, 1)
    reviews = RetentionReview.objects.filter(member=member)
    assert sorted(r.entry_id for r in reviews) == sorted([copilot.pk, in_tenant.pk])
    assert all(r.state == "open" for r in reviews)
    assert not reviews.filter(entry=profile).exists()
    review = review_of(copilot)
    assert review.due_at == MemoryEntry.objects.get(pk=copilot.pk).updated_at + 14 * DAY
    # nothing was deleted by the sweep
    assert MemoryEntry.objects.get(pk=copilot.pk).lifecycle == Lifecycle.ACTIVE


def test_a_kept_review_comes_back_only_after_another_window():
    member = consenting_member()
    copilot = copilot_note(member)
    swept(15)
    admin = OperatorFactory(role=OperatorRole.ADMIN)
    retention_review_decide(
        review_id=review_of(copilot).pk,
        decision="keep",
        operator=admin,
        now=timezone.now() + 15 * DAY,
    )
    assert swept(20).reviews_flagged == 0
    assert swept(30).reviews_flagged == 1
    assert RetentionReview.objects.filter(entry=copilot).count() == 2


# --- the page ---------------------------------------------------------------------------------


def test_a_reviewer_sees_the_due_items_on_metadata_only():
    member = consenting_member()
    copilot_note(member)
    swept(15)
    for role in (OperatorRole.ADMIN, OperatorRole.TRUST_AND_SAFETY):
        response = signed_in(OperatorFactory(role=role)).get(INDEX)
        assert response.status_code == 200
        html = response.content.decode()
        assert member.email in html
        assert "Operator copilot" in html or "operator copilot" in html.lower()
        assert MARKER not in html and "ticket" not in html


@pytest.mark.parametrize("role", [OperatorRole.SUPPORT, OperatorRole.LEGAL])
def test_support_and_legal_do_not_decide_retention(role):
    member = consenting_member()
    copilot = copilot_note(member)
    swept(15)
    review = review_of(copilot)
    client = signed_in(OperatorFactory(role=role))
    assert client.get(INDEX).status_code == 403
    assert client.get(RECONFIRM).status_code == 403
    assert (
        client.post(decide_url(review), {"decision": "delete", "confirmed": "on"}).status_code
        == 403
    )
    assert review_of(copilot).state == "open"
    assert MemoryEntry.objects.get(pk=copilot.pk).body == COPILOT_BODY


def test_members_are_refused():
    member = consenting_member()
    assert signed_in(member).get(INDEX).status_code == 403


def test_keep_through_the_page():
    member = consenting_member()
    copilot = copilot_note(member)
    swept(15)
    admin = OperatorFactory(role=OperatorRole.ADMIN)
    review = review_of(copilot)

    response = signed_in(admin).post(decide_url(review), {"decision": "keep"}, follow=True)

    assert "Kept" in messages_of(response)
    review.refresh_from_db()
    assert (review.state, review.decided_by) == ("kept", admin.pk)
    assert MemoryEntry.objects.get(pk=copilot.pk).body == COPILOT_BODY
    [event] = AuditEvent.objects.filter(action="memory.retention.review_decided")
    assert event.payload["decision"] == "keep" and event.actor_id == admin.pk
    assert event.payload["entry_id"] == str(copilot.pk)
    assert member.email not in response.content.decode()  # off the list now
    assert_no_audit_mentions(MARKER)


def test_delete_needs_the_confirmation_then_erases_everywhere():
    member = consenting_member()
    copilot = copilot_note(member)
    swept(15)
    ts = OperatorFactory(role=OperatorRole.TRUST_AND_SAFETY)
    review = review_of(copilot)
    client = signed_in(ts)

    confirm_page = client.get(f"{INDEX}{review.pk}/delete/")
    assert confirm_page.status_code == 200
    assert MARKER not in confirm_page.content.decode()
    unconfirmed = client.post(decide_url(review), {"decision": "delete"}, follow=True)
    assert "Confirm the deletion first" in messages_of(unconfirmed)
    assert review_of(copilot).state == "open"

    done = client.post(decide_url(review), {"decision": "delete", "confirmed": "on"}, follow=True)

    assert "Deleted" in messages_of(done)
    review.refresh_from_db()
    assert review.state == "deleted"
    no_text_left(member, copilot, [COPILOT_BODY, "ticket"])
    erased = AuditEvent.objects.filter(action="memory.entries.erased").latest("sequence")
    assert erased.payload["reason"] == "retention-review"
    assert erased.payload["entry_ids"] == [str(copilot.pk)]
    assert_no_audit_mentions(MARKER)
    # decided once: a second decision is refused, not repeated
    assert client.post(decide_url(review), {"decision": "keep"}).status_code == 404


def test_summarize_writes_a_summary_then_erases_the_raw_entry():
    tenant = TenantFactory()
    member = consenting_member(tenants=[tenant])
    raw = tenant_memory(member, tenant)
    swept(366)
    admin = OperatorFactory(role=OperatorRole.ADMIN)
    review = review_of(raw)

    response = signed_in(admin).post(decide_url(review), {"decision": "summarize"}, follow=True)

    assert "Summarized" in messages_of(response), messages_of(response)
    review.refresh_from_db()
    assert review.state == "summarized"
    summary = MemoryEntry.objects.get(pk=review.summary_entry_id)
    assert summary.origin == "summarized-from-session"
    assert (summary.scope_kind, summary.tenant_id, summary.category) == (
        "tenant",
        tenant.pk,
        "work",
    )
    assert {"kind": "session-summary", "ref": str(raw.pk)}.items() <= summary.provenance_chain[
        0
    ].items()
    no_text_left(member, raw, [TENANT_BODY, "course"], summary=summary)
    assert AuditEvent.objects.get(action="memory.retention.review_decided").payload[
        "summary_entry_id"
    ] == str(summary.pk)


def test_a_summary_the_write_path_refuses_leaves_the_memory_and_the_review_open():
    member = consenting_member()
    copilot = copilot_note(member)
    swept(15)
    review = review_of(copilot)
    admin = OperatorFactory(role=OperatorRole.ADMIN)

    def empty(texts):
        return ""

    with pytest.raises(PolicyRefusal) as refusal:
        retention_review_decide(
            review_id=review.pk, decision="summarize", operator=admin, summarizer=empty
        )
    assert refusal.value.code == "nothing-to-summarize"
    assert review_of(copilot).state == "open"
    assert MemoryEntry.objects.get(pk=copilot.pk).body == COPILOT_BODY


# --- tenant binding -------------------------------------------------------------------------


def test_a_tenant_bound_operator_sees_and_decides_only_their_tenants_memory():
    """The inspection rule (a tenant-bound operator reads only tenant-scope memory of
    their tenant) holds for retention reviews too: neither another tenant's memory nor a
    member's consumer memory (an operator note, even of their own tenant's member) is
    theirs to list, keep, summarise or delete."""
    ours, theirs = TenantFactory(), TenantFactory()
    our_member = consenting_member(tenants=[ours])
    their_member = consenting_member(tenants=[theirs])
    our_course = tenant_memory(our_member, ours)
    their_course = tenant_memory(their_member, theirs)
    our_note = copilot_note(our_member)
    swept(400)
    bound = OperatorFactory(role=OperatorRole.ADMIN, tenant=ours)
    client = signed_in(bound)

    html = client.get(INDEX).content.decode()
    assert our_member.email in html and their_member.email not in html
    assert html.count("Delete…") == 1  # our tenant's course, not the member's note
    for entry, body in ((their_course, TENANT_BODY), (our_note, COPILOT_BODY)):
        review = review_of(entry)
        assert client.get(f"{INDEX}{review.pk}/delete/").status_code == 404
        refused = client.post(decide_url(review), {"decision": "delete", "confirmed": "on"})
        assert refused.status_code == 404
        assert MemoryEntry.objects.get(pk=entry.pk).body == body
        assert review_of(entry).state == "open"  # still the platform's to decide
    assert client.post(decide_url(review_of(our_course)), {"decision": "keep"}).status_code == 302

    section = home_section(type("R", (), {"user": bound})())
    assert section["count"] == 0  # ours was kept; the others are not counted
    platform = signed_in(OperatorFactory(role=OperatorRole.ADMIN)).get(INDEX).content.decode()
    assert our_member.email in platform and their_member.email in platform


# --- re-confirmation counts and the home section --------------------------------------------


def test_reconfirm_counts_and_home_section():
    ours, theirs = TenantFactory(), TenantFactory()
    member = consenting_member(tenants=[ours])
    other = consenting_member(tenants=[theirs])
    now = timezone.now()
    for who in (member, member, other):
        entry = remember(who, subject=str(uuid.uuid4()), origin="model-inferred").entry
        ReconfirmRequest.objects.create(
            member=who, entry_id=entry.pk, freshness=0.2, effective_confidence=0.1, queued_at=now
        )
    tenant_memory(member, ours)
    swept(366)

    platform = signed_in(OperatorFactory(role=OperatorRole.ADMIN)).get(RECONFIRM)
    bound_admin = OperatorFactory(role=OperatorRole.TRUST_AND_SAFETY, tenant=ours)
    bound = signed_in(bound_admin).get(RECONFIRM)

    assert platform.context["counts"] == {"open": 3, "resolved": 0}
    assert bound.context["counts"] == {"open": 2, "resolved": 0}
    section = home_section(type("R", (), {"user": bound_admin})())
    assert section["template"] == "console/_home_reviews.html"
    assert (section["count"], section["reconfirm_open"]) == (1, 2)
    assert home_section(type("R", (), {"user": OperatorFactory(role="support")})()) is None


def test_the_home_page_shows_the_reviews_due_to_reviewers_only():
    member = consenting_member()
    copilot_note(member)
    swept(15)
    reviewer = signed_in(OperatorFactory(role=OperatorRole.TRUST_AND_SAFETY)).get("/console/")
    html = reviewer.content.decode()
    assert "Retention reviews due" in html and member.email in html
    assert MARKER not in html
    support = signed_in(OperatorFactory(role=OperatorRole.SUPPORT)).get("/console/")
    assert "Retention reviews due" not in support.content.decode()
