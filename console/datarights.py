"""The data-rights queue in the console (/console/data-rights/): legal and admin operators
see requests soonest deadline first, with the member's email and the deadline's state,
and act on one: extend it once (with a reason the member is told), move it along the
state machine, or fail it with a reason. A tenant-bound operator sees only requests of
their tenant's members; anyone else's is not found.

Thin views: a Django form, a service, a message, a redirect (POST → redirect → GET).
The services audit every change with ids and counts; reasons stay on the request.
"""

from datetime import datetime, time, timedelta

from django import forms
from django.contrib import messages
from django.db.models import Q, QuerySet
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from console.access import console_page, operator_role
from datarights import conf
from datarights.enums import FINISHED_STATUSES, RequestStatus
from datarights.models import DataRightsRequest
from datarights.policy import (
    DUE_SOON,
    REASON_MAX_LENGTH,
    DeadlineState,
    can_fail,
    deadline_state,
    latest_extension,
    operator_moves,
)
from datarights.selectors import datarights_queue, datarights_queue_get, datarights_trail
from datarights.services import (
    datarights_extend,
    datarights_fail,
    datarights_operator_transition,
)
from iris_site.api.gated import content_free
from iris_site.audit.events import Actor
from iris_site.enums import OperatorRole
from iris_site.errors import DomainError
from iris_site.selectors import operator_tenant_id

# Legal's role is data rights; admins oversee everything.
DATARIGHTS_ROLES = (OperatorRole.LEGAL, OperatorRole.ADMIN)
PAGE_SIZE = 100
HOME_LIMIT = 20

MOVE_LABELS = {
    RequestStatus.VERIFIED: "Mark identity verified",
    RequestStatus.IN_PROGRESS: "Start processing",
    RequestStatus.COMPLETED: "Uphold the original outcome (complete)",
    RequestStatus.CANCELLED: "Cancel the request",
}
DEADLINE_LABELS = {
    DeadlineState.OVERDUE: "overdue",
    DeadlineState.SOON: "due soon",
    DeadlineState.OK: "on time",
    DeadlineState.DONE: "finished",
}
# Not finished, or failed (a failure can be retried or appealed): still work.
OPEN_WORK = Q(status__in=sorted(set(RequestStatus.values) - FINISHED_STATUSES)) | Q(
    status=RequestStatus.FAILED
)


class QueueFilterForm(forms.Form):
    state = forms.ChoiceField(
        label="State",
        required=False,
        choices=[("", "Open work"), ("all", "All states"), *RequestStatus.choices],
    )
    deadline = forms.ChoiceField(
        label="Deadline",
        required=False,
        choices=[
            ("", "Any deadline"),
            (DeadlineState.OVERDUE, "Overdue"),
            (DeadlineState.SOON, "Due within 7 days"),
            (DeadlineState.OK, "On time"),
        ],
    )


class ExtendForm(forms.Form):
    until = forms.DateField(
        label="New deadline (date, optional)",
        required=False,
        widget=forms.DateInput(attrs={"type": "date", "aria-describedby": "extend-until-help"}),
        help_text="At most two further months; empty means the full two months.",
    )
    reason = forms.CharField(
        label="Why more time is needed (the member is shown this)",
        max_length=REASON_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 3}),
    )


class MoveForm(forms.Form):
    to = forms.ChoiceField(choices=[(s, s) for s in MOVE_LABELS])
    verification_method = forms.ChoiceField(
        label="How identity was verified",
        required=False,
        choices=[("operator-signoff", "Operator sign-off"), ("court-order", "Court order")],
    )


class FailForm(forms.Form):
    reason = forms.CharField(
        label="Why the request fails (the member is shown this)",
        max_length=REASON_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 3}),
    )


def _queue(request) -> QuerySet[DataRightsRequest]:
    return datarights_queue(tenant_id=operator_tenant_id(request.user)).select_related("member")


def _queued(request, pk) -> DataRightsRequest:
    found = datarights_queue_get(tenant_id=operator_tenant_id(request.user), request_id=pk)
    if found is None:
        raise Http404
    return found


def _deadline(item: DataRightsRequest, now: datetime) -> dict:
    state = deadline_state(status=item.status, due_at=item.due_at, now=now)
    return {"state": state, "css": f"deadline-{state}", "label": DEADLINE_LABELS[state]}


def _filtered(queryset, data: dict, now: datetime):
    state = data.get("state") or ""
    if state == "":
        queryset = queryset.filter(OPEN_WORK)
    elif state != "all":
        queryset = queryset.filter(status=state)
    deadline = data.get("deadline") or ""
    if deadline:
        queryset = queryset.filter(OPEN_WORK)
    if deadline == DeadlineState.OVERDUE:
        queryset = queryset.filter(due_at__lt=now)
    elif deadline == DeadlineState.SOON:
        queryset = queryset.filter(due_at__gte=now, due_at__lt=now + DUE_SOON)
    elif deadline == DeadlineState.OK:
        queryset = queryset.filter(due_at__gte=now + DUE_SOON)
    return queryset


@content_free
@require_GET
@console_page(roles=DATARIGHTS_ROLES)
def queue(request):
    now = timezone.now()
    form = QueueFilterForm(request.GET or None)
    data = form.cleaned_data if form.is_bound and form.is_valid() else {}
    items = list(_filtered(_queue(request), data, now)[:PAGE_SIZE])
    rows = [{"request": item, "deadline": _deadline(item, now)} for item in items]
    return render(
        request,
        "console/datarights/queue.html",
        {
            "console_section": "datarights",
            "form": form,
            "rows": rows,
            "truncated": len(items) == PAGE_SIZE,
        },
    )


def _detail_context(request, item: DataRightsRequest, **forms_) -> dict:
    now = timezone.now()
    zone = conf.deadline_zone()
    verified = item.verified_at is not None
    extendable = (
        item.extended_deadline_at is None
        and item.status
        in (RequestStatus.VERIFIED, RequestStatus.IN_PROGRESS, RequestStatus.APPEALED)
        and now < item.deadline_at
    )
    return {
        "console_section": "datarights",
        "item": item,
        "deadline": _deadline(item, now),
        "trail": list(datarights_trail(request=item)),
        "extendable": extendable,
        "latest_extension": latest_extension(item.deadline_at, zone),
        "extend_form": forms_.get("extend_form") or ExtendForm(),
        "moves": [
            {"to": to, "label": MOVE_LABELS[to]}
            for to in operator_moves(status=item.status, verified=verified)
        ],
        "can_fail": can_fail(status=item.status, verified=verified),
        "fail_form": forms_.get("fail_form") or FailForm(),
    }


@content_free
@require_GET
@console_page(roles=DATARIGHTS_ROLES)
def detail(request, pk):
    item = _queued(request, pk)
    return render(request, "console/datarights/detail.html", _detail_context(request, item))


def _until(item: DataRightsRequest, day) -> datetime | None:
    """A chosen date, at the first deadline's wall-clock time in the deadline zone."""
    if day is None:
        return None
    zone = conf.deadline_zone()
    local_time = item.deadline_at.astimezone(zone).time()
    return datetime.combine(day, time(local_time.hour, local_time.minute), tzinfo=zone)


def _act(request, item, action, success: str):
    try:
        action()
    except DomainError as exc:
        details = [m for msgs in exc.fields.values() for m in msgs]
        messages.error(request, " ".join([exc.message, *details]))
    else:
        messages.success(request, success)
    return redirect("console:datarights-detail", pk=item.pk)


def _invalid(request, item, form, name: str):
    messages.error(request, "Please correct the form below.")
    return render(
        request,
        "console/datarights/detail.html",
        _detail_context(request, item, **{name: form}),
        status=400,
    )


@content_free
@require_POST
@console_page(roles=DATARIGHTS_ROLES)
def extend(request, pk):
    item = _queued(request, pk)
    form = ExtendForm(request.POST)
    if not form.is_valid():
        return _invalid(request, item, form, "extend_form")
    return _act(
        request,
        item,
        lambda: datarights_extend(
            request=item,
            reason=form.cleaned_data["reason"],
            until=_until(item, form.cleaned_data["until"]),
            actor=Actor.of(request.user),
        ),
        "Deadline extended. The member is told the new deadline and the reason.",
    )


@content_free
@require_POST
@console_page(roles=DATARIGHTS_ROLES)
def transition(request, pk):
    item = _queued(request, pk)
    form = MoveForm(request.POST)
    if not form.is_valid():
        messages.error(request, "That move is not offered.")
        return redirect("console:datarights-detail", pk=item.pk)
    to = form.cleaned_data["to"]
    return _act(
        request,
        item,
        lambda: datarights_operator_transition(
            request=item,
            to=to,
            verification_method=form.cleaned_data.get("verification_method") or "",
            actor=Actor.of(request.user),
        ),
        f"Request moved to {to}.",
    )


@content_free
@require_POST
@console_page(roles=DATARIGHTS_ROLES)
def fail(request, pk):
    item = _queued(request, pk)
    form = FailForm(request.POST)
    if not form.is_valid():
        return _invalid(request, item, form, "fail_form")
    return _act(
        request,
        item,
        lambda: datarights_fail(
            request=item, reason=form.cleaned_data["reason"], actor=Actor.of(request.user)
        ),
        "Request failed. The member is shown the reason.",
    )


def home_section(request) -> dict | None:
    """For the console home: this operator's requests overdue or due within 7 days
    (legal and admin only; tenant binding respected). None when not theirs to see."""
    if operator_role(request.user) not in DATARIGHTS_ROLES:
        return None
    now = timezone.now()
    urgent = _queue(request).filter(OPEN_WORK, due_at__lt=now + DUE_SOON)
    items = list(urgent[:HOME_LIMIT])
    rows = [{"request": item, "deadline": _deadline(item, now)} for item in items]
    overdue = [r for r in rows if r["deadline"]["state"] == DeadlineState.OVERDUE]
    due_soon = [r for r in rows if r["deadline"]["state"] == DeadlineState.SOON]
    return {
        "template": "console/_home_datarights.html",
        "overdue": overdue,
        "due_soon": due_soon,
        "count": urgent.count(),
        "shown": len(items),
        "window_days": DUE_SOON // timedelta(days=1),
    }
