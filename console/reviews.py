"""Retention reviews in the console (/console/reviews/): admin and trust & safety
operators see the memory waiting for a retention decision (the review scope kinds past
their window: operator-copilot, tenant, crisis) and decide each one: keep it, summarize
it, or delete it (after a confirmation). The decision is made on metadata only — member,
scope kind, category, dates — never on the memory's text: operators read member memory
only through a granted inspection. A tenant-bound operator sees only their tenant's
members' reviews; anyone else's is not found.

/console/reviews/reconfirm/ counts the freshness job's re-confirmation requests by state:
the member answers those ("Is this still true?" on their memory page), not the operator.

Thin views: a Django form, `memory.sweeps.reviews.retention_review_decide` (which audits, and
erases through `memory_erase`), a message, a redirect.
"""

from django import forms
from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from console.access import console_page, operator_role
from hierarchy.freshness_job import reconfirm_request_counts
from iris_site.api.gated import content_free
from iris_site.audit.sealing import MARKER as SPECIAL_CATEGORY
from iris_site.errors import DomainError
from iris_site.selectors import operator_tenant_id
from memory.enums import MemoryCategory, ScopeKind, is_sensitive_category
from memory.sweeps.reviews import (
    REVIEWER_ROLES,
    ReviewDecision,
    retention_review_decide,
    retention_reviews_open,
)

PAGE_SIZE = 100
HOME_LIMIT = 10
DONE = {
    ReviewDecision.KEEP: "Kept. It comes up for review again after another retention window.",
    ReviewDecision.SUMMARIZE: "Summarized: the summary is kept, the original memory is erased.",
    ReviewDecision.DELETE: "Deleted: the memory is erased everywhere.",
}


class DecisionForm(forms.Form):
    decision = forms.ChoiceField(choices=[(d, d) for d in ReviewDecision.CHOICES])
    confirmed = forms.BooleanField(
        required=False, label="I understand the memory is erased for good"
    )

    def clean(self):
        data = super().clean()
        if data.get("decision") == ReviewDecision.DELETE and not data.get("confirmed"):
            raise forms.ValidationError("Confirm the deletion first.", code="unconfirmed")
        return data


def _row(review) -> dict:
    entry = review.entry
    return {
        "review": review,
        "member_email": review.member.email,
        "scope_kind": ScopeKind(entry.scope_kind).label,
        # A special category only as the marker: this is no inspection (issue 42).
        "category": SPECIAL_CATEGORY
        if is_sensitive_category(entry.category)
        else MemoryCategory(entry.category).label,
    }


def _open(request):
    return retention_reviews_open(operator=request.user).order_by("due_at", "id")


def _open_review(request, review_id):
    review = _open(request).filter(pk=review_id).first()
    if review is None:
        raise Http404
    return review


@content_free
@require_GET
@console_page(roles=REVIEWER_ROLES)
def reviews_index(request):
    reviews = list(_open(request)[:PAGE_SIZE])
    return render(
        request,
        "console/reviews/index.html",
        {
            "console_section": "reviews",
            "rows": [_row(r) for r in reviews],
            "truncated": len(reviews) == PAGE_SIZE,
        },
    )


@content_free
@require_GET
@console_page(roles=REVIEWER_ROLES)
def review_delete_confirm(request, review_id):
    review = _open_review(request, review_id)
    return render(
        request,
        "console/reviews/delete.html",
        {"console_section": "reviews", "row": _row(review), "form": DecisionForm()},
    )


@content_free
@require_POST
@console_page(roles=REVIEWER_ROLES)
def review_decide(request, review_id):
    review = _open_review(request, review_id)
    form = DecisionForm(request.POST)
    if not form.is_valid():
        for error in form.errors.get("__all__", []) or ["Choose keep, summarize or delete."]:
            messages.error(request, error)
        if request.POST.get("decision") == ReviewDecision.DELETE:
            return redirect("console:reviews-delete", review_id=review.pk)
        return redirect("console:reviews")
    decision = form.cleaned_data["decision"]
    try:
        retention_review_decide(review_id=review.pk, decision=decision, operator=request.user)
    except DomainError as refusal:
        messages.error(request, refusal.message)
    else:
        messages.success(request, DONE[decision])
    return redirect("console:reviews")


@content_free
@require_GET
@console_page(roles=REVIEWER_ROLES)
def reconfirm_index(request):
    counts = reconfirm_request_counts(tenant_id=operator_tenant_id(request.user))
    return render(
        request,
        "console/reviews/reconfirm.html",
        {"console_section": "reviews", "counts": counts},
    )


def home_section(request) -> dict | None:
    """The home page's part: the reviews due for this operator (a reviewer) and the open
    re-confirmation count. None for operators who do not review retention."""
    if operator_role(request.user) not in REVIEWER_ROLES:
        return None
    reviews = _open(request)
    due = list(reviews[:HOME_LIMIT])
    counts = reconfirm_request_counts(tenant_id=operator_tenant_id(request.user))
    return {
        "template": "console/_home_reviews.html",
        "rows": [_row(r) for r in due],
        "count": reviews.count(),
        "shown": len(due),
        "reconfirm_open": counts.get("open", 0),
    }
