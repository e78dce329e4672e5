"""Operator accounts in the console (/console/operators/), for platform admins (the admin
role, bound to no tenant): the changes waiting for a second admin, each with Approve and
Refuse (offered only to an admin linked neither to whoever asked nor to the operator it
changes; otherwise shown disabled, with why), a role change asked for by email, and the
recent account changes (created, role, tenant, deactivated, reactivated), newest first.

Thin views: every rule is `iris_site.operators`' (which records and audits each change).
"""

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from console.access import console_page
from iris_site.api.gated import content_free
from iris_site.enums import OperatorRole, UserKind
from iris_site.errors import DomainError
from iris_site.models import OperatorAccountChange, User
from iris_site.operators import (
    decision_refusal,
    link_window,
    operator_change_decide,
    operator_changes_pending,
    operator_changes_recent,
    operator_role_change,
)
from iris_site.selectors import operator_tenant_id

OPERATOR_ROLES = (OperatorRole.ADMIN,)
SECTION = "operators"
DECISIONS = {"approve": True, "refuse": False}


class RoleChangeForm(forms.Form):
    email = forms.EmailField(
        label="Operator's email address",
        widget=forms.EmailInput(attrs={"autocomplete": "off"}),
    )
    role = forms.ChoiceField(label="New role", choices=OperatorRole.choices)


def _platform_only(request) -> None:
    if operator_tenant_id(request.user) is not None:
        raise PermissionDenied


def _page(request, *, form=None, status=200):
    pending = [
        {"change": change, "refusal": decision_refusal(change, request.user)}
        for change in operator_changes_pending()
    ]
    return render(
        request,
        "console/operators/list.html",
        {
            "console_section": SECTION,
            "pending": pending,
            "changes": operator_changes_recent(),
            "form": form or RoleChangeForm(),
            "window_days": int(link_window().total_seconds() // 86400),
        },
        status=status,
    )


@content_free
@require_GET
@console_page(roles=OPERATOR_ROLES)
def operator_list(request):
    _platform_only(request)
    return _page(request)


@content_free
@require_POST
@console_page(roles=OPERATOR_ROLES)
def operator_role_request(request):
    """Ask for a role change: applied at once, or waiting for a second admin."""
    _platform_only(request)
    form = RoleChangeForm(request.POST)
    if not form.is_valid():
        return _page(request, form=form, status=400)
    subject = User.objects.filter(
        email__iexact=form.cleaned_data["email"], kind=UserKind.OPERATOR
    ).first()
    if subject is None:
        form.add_error("email", "No operator signs in with this address.")
        return _page(request, form=form, status=404)
    try:
        change = operator_role_change(
            subject=subject, role=form.cleaned_data["role"], by=request.user
        )
    except DomainError as exc:
        messages.error(request, exc.message)
        return _page(request, form=form, status=exc.status_code)
    if change.state == "pending":
        messages.success(request, "Role change asked for: it waits for a second platform admin.")
    else:
        messages.success(request, "Role changed.")
    return redirect("console:operators")


@content_free
@require_POST
@console_page(roles=OPERATOR_ROLES)
def operator_change_decision(request, pk, decision):
    """A second platform admin approves or refuses a waiting change."""
    _platform_only(request)
    if decision not in DECISIONS:
        raise Http404
    change = get_object_or_404(OperatorAccountChange, pk=pk)
    try:
        operator_change_decide(change=change, by=request.user, approve=DECISIONS[decision])
    except DomainError as exc:
        messages.error(request, f"{exc.message} ({exc.code})")
        return _page(request, status=exc.status_code)
    messages.success(request, "Change approved." if DECISIONS[decision] else "Change refused.")
    return redirect("console:operators")
