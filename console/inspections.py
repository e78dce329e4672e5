"""The inspection workflow in the console: find a member by email, open a request with a
scope picked from a list, move it along with exactly the steps this operator may take,
read a granted snapshot through a deliberate confirmation, and add copilot notes.

Thin views: every rule (roles, four eyes, the policy gate, time boxes, tenant binding) is
`inspection.services`' and `inspection.policy`'s; a page only offers what they allow and
shows their refusals.
"""

import uuid

from django import forms
from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from console.access import console_page, operator_role
from datarights.selectors import FULFILLABLE_STATUSES, datarights_request_list
from inspection import policy
from inspection.enums import InspectionState
from inspection.selectors import (
    inspection_event_list,
    inspection_get,
    inspection_list,
    inspection_member_find,
    inspection_scope_options,
)
from inspection.services import (
    MAX_JUSTIFICATION_LENGTH,
    REDACTION_MULTI_ACTOR,
    REDACTION_PURGED,
    inspection_copilot_note_add,
    inspection_gate_preview,
    inspection_open,
    inspection_read,
    inspection_transition,
)
from iris_site import operator_links
from iris_site.api.gated import INSPECTION, content_free, content_view
from iris_site.enums import OperatorRole
from iris_site.errors import DomainError, NotFound
from iris_site.operators import operators_linked
from memory.access.gate import ContentKind
from memory.enums import MemoryCategory, ScopeKind, is_sensitive_category
from memory.policy.scopes import KIND_BLUEPRINTS

_S = InspectionState
SECTION = "inspections"

STATE_LABELS = {
    _S.REQUESTED: "Requested",
    _S.DSAR_FULFILLMENT: "DSAR fulfilment",
    _S.INCIDENT_ESCALATION: "Incident escalation",
    _S.ROUTINE_REVIEW: "Routine review",
    _S.GRANTED: "Granted",
    _S.DENIED: "Denied",
    _S.CLOSED: "Closed",
}
STEP_LABELS = {
    _S.ROUTINE_REVIEW: "Route as a routine review",
    _S.DSAR_FULFILLMENT: "Route as a data-rights (DSAR) fulfilment",
    _S.INCIDENT_ESCALATION: "Route as an incident escalation",
    _S.GRANTED: "Grant",
    _S.DENIED: "Deny",
    _S.CLOSED: "Close the inspection",
}
SECOND_APPROVER_LABEL = "Approve as second approver"
REDACTION_LABELS = {
    REDACTION_MULTI_ACTOR: "mentions of other people removed",
    REDACTION_PURGED: "erased since the grant (a hard delete): not shown",
}
IDENTIFIER_LABELS = {
    "session_id": "session",
    "scene_id": "scene",
    "room_id": "room",
    "pose_id": "pose",
    "avatar_id": "avatar",
    "notebook_id": "notebook",
    "operator_id": "operator",
}


def _not_found(view):
    """A request this operator may not see (or no such request) is a plain 404."""

    def wrapped(request, *args, **kwargs):
        try:
            return view(request, *args, **kwargs)
        except NotFound as exc:
            raise Http404(exc.message) from exc

    wrapped.__name__ = view.__name__
    wrapped.__doc__ = view.__doc__
    return wrapped


# --- Forms ----------------------------------------------------------------------------------


class FindMemberForm(forms.Form):
    email = forms.EmailField(
        label="Member's email address",
        help_text="The exact address the member signs in with.",
        widget=forms.EmailInput(attrs={"autocomplete": "off"}),
    )


def _scope_label(option: dict) -> str:
    scope = option["scope"]
    kind = scope["kind"]
    label = KIND_BLUEPRINTS[kind][0].label
    if kind == ScopeKind.TENANT:
        return f"{label}: {option['tenant'].name}"
    parts = [f"{IDENTIFIER_LABELS.get(k, k)} {v}" for k, v in scope.items() if k != "kind"]
    return f"{label} ({', '.join(parts)})" if parts else label


def _scope_value(scope: dict) -> str:
    return "|".join(f"{k}={v}" for k, v in sorted(scope.items()))


class OpenRequestForm(forms.Form):
    email = forms.EmailField(widget=forms.HiddenInput)
    scope = forms.ChoiceField(
        label="Which memory",
        widget=forms.RadioSelect,
        help_text="One scope of the member's memory; only scopes operators may review.",
    )
    include_sensitive = forms.BooleanField(
        label="Include sensitive memory (health, sexuality, beliefs, money, legal matters)",
        required=False,
        help_text=(
            "Only legal (fulfilling the member's data-rights request) and trust & safety "
            "(a signed incident) may see it, and a second operator must approve."
        ),
    )
    justification = forms.CharField(
        label="Why you need to look",
        max_length=MAX_JUSTIFICATION_LENGTH,
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text="Kept with the request; the member may be told why an operator looked.",
    )

    def __init__(self, *args, options: list[dict], **kwargs):
        super().__init__(*args, **kwargs)
        self.options = {_scope_value(o["scope"]): o["scope"] for o in options}
        self.fields["scope"].choices = [
            (_scope_value(o["scope"]), _scope_label(o)) for o in options
        ]


class RouteForm(forms.Form):
    """What a routing step needs besides the step: a DSAR to fulfil, a signed incident."""

    dsar_request_id = forms.TypedChoiceField(
        label="The member's data-rights request", required=False, coerce=uuid.UUID
    )
    signed_incident_ref = forms.CharField(
        label="Signed incident reference",
        required=False,
        max_length=128,
        help_text="As the incident system gives it: the incident id, a dot, the signature.",
    )
    investigation_carveout = forms.BooleanField(
        label="Ongoing investigation: do not notify the member at close",
        required=False,
    )

    def __init__(self, *args, dsars=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["dsar_request_id"].choices = [("", "Choose a request")] + [
            (str(d.pk), f"{d.get_kind_display()} request received {d.received_at:%Y-%m-%d}")
            for d in dsars
        ]


class ConfirmReadForm(forms.Form):
    confirm = forms.BooleanField(
        label="I understand: this read is recorded, and I need it for this request.",
        required=True,
        error_messages={"required": "Confirm before reading: the read is recorded."},
    )


class CopilotNoteForm(forms.Form):
    category = forms.ChoiceField(
        label="Kind of note",
        choices=[(c.value, c.label) for c in MemoryCategory if not is_sensitive_category(c)],
    )
    subject = forms.CharField(label="Subject (optional)", required=False, max_length=200)
    body = forms.CharField(label="Note", widget=forms.Textarea(attrs={"rows": 3}))


# --- Helpers -------------------------------------------------------------------------------


def _open_dsars(inspection):
    return datarights_request_list(member_id=inspection.member_id).filter(
        status__in=FULFILLABLE_STATUSES
    )


def _steps(inspection, operator) -> list[dict]:
    second = policy.is_four_eyes(inspection) and operator.pk != inspection.operator_id
    steps = []
    gate = inspection_gate_preview(inspection=inspection)
    linked = ""
    if second:
        linked = operator_links.explain(operators_linked(operator, inspection.operator))
    steps_offered = policy.available_steps(inspection, operator, gate=gate, linked=linked)
    for step, allowed, reason in steps_offered:
        label = STEP_LABELS[step]
        if step == _S.GRANTED and second:
            label = SECOND_APPROVER_LABEL
        elif step == _S.DENIED and second:
            label = "Refuse as second approver"
        steps.append(
            {
                "step": step,
                "label": label,
                "allowed": allowed,
                "reason": reason,
                "url": reverse("console:inspection-transition", args=[inspection.pk, step]),
                "danger": step in (_S.DENIED, _S.CLOSED),
            }
        )
    return steps


def _member_told(inspection) -> bool:
    """Every read is confirmed first; one that can include sensitive memory also says that
    the member will be told (the notice queued at close, unless an investigation's
    carve-out holds it)."""
    return inspection.include_sensitive and not inspection.investigation_carveout


def _render_error(request, exc: DomainError) -> None:
    messages.error(request, exc.message)
    for field, errors in exc.fields.items():
        for error in errors:
            messages.error(request, f"{field.replace('_', ' ')}: {error}")


# --- Pages ---------------------------------------------------------------------------------


@content_free
@require_GET
@console_page()
def inspection_list_view(request):
    """The requests this operator may see, newest first (their own; admin oversight all)."""
    inspections = inspection_list(operator=request.user).order_by("-created_at")[:200]
    rows = [{"inspection": i, "state_label": STATE_LABELS[i.state]} for i in inspections]
    return render(
        request,
        "console/inspections/list.html",
        {"console_section": SECTION, "rows": rows},
    )


@content_free
@require_http_methods(["GET", "POST"])
@console_page()
def inspection_new_view(request):
    """Find the member by email, then pick a scope and say why: the service opens it."""
    operator = request.user
    source = request.POST if request.method == "POST" else request.GET
    find = FindMemberForm(source or None)
    member = None
    if find.is_bound and find.is_valid():
        member = inspection_member_find(operator=operator, email=find.cleaned_data["email"])
    context = {"console_section": SECTION, "find": find, "member": member, "form": None}
    if find.is_bound and find.is_valid() and member is None:
        context["not_found"] = True
        return render(request, "console/inspections/new.html", context, status=404)
    if member is None:
        return render(request, "console/inspections/new.html", context)
    options = inspection_scope_options(operator=operator, member=member)
    if request.method == "GET":
        form = OpenRequestForm(initial={"email": member.email}, options=options)
        return render(request, "console/inspections/new.html", context | {"form": form})
    form = OpenRequestForm(request.POST, options=options)
    if form.is_valid():
        data = form.cleaned_data
        try:
            inspection = inspection_open(
                operator=operator,
                member_id=member.pk,
                scope=dict(form.options[data["scope"]]),
                justification=data["justification"],
                include_sensitive=data["include_sensitive"],
            )
        except DomainError as exc:
            _render_error(request, exc)
        else:
            messages.success(request, "Request opened. Choose its path below.")
            return redirect("console:inspection-detail", pk=inspection.pk)
    return render(request, "console/inspections/new.html", context | {"form": form}, status=400)


@content_free
@require_GET
@console_page()
@_not_found
def inspection_detail_view(request, pk):
    """State, timeline, and the steps the state machine and the rules allow this operator."""
    operator = request.user
    inspection = inspection_get(operator=operator, inspection_id=pk)
    now = timezone.now()
    read_refusal = policy.read_refusal(inspection, operator, now=now)
    is_requester = operator.pk == inspection.operator_id
    events = [
        {
            "event": e,
            "from_label": STATE_LABELS.get(e.from_state, ""),
            "to_label": STATE_LABELS[e.to_state],
            "by": "you" if e.actor_id == operator.pk else _actor_words(e),
        }
        for e in inspection_event_list(inspection_id=pk)
    ]
    return render(
        request,
        "console/inspections/detail.html",
        {
            "console_section": SECTION,
            "inspection": inspection,
            "state_label": STATE_LABELS[inspection.state],
            "path_label": STATE_LABELS.get(inspection.path, ""),
            "is_requester": is_requester,
            "four_eyes": policy.needs_second_approver(
                path=inspection.path, include_sensitive=inspection.include_sensitive
            ),
            "approver_role": (
                OperatorRole(policy.APPROVING_ROLES[inspection.path]).label
                if inspection.path
                else ""
            ),
            "steps": _steps(inspection, operator),
            "route_form": RouteForm(dsars=_open_dsars(inspection)),
            "events": events,
            "read_refusal": read_refusal,
            "note_form": CopilotNoteForm() if not read_refusal else None,
            "scope_label": _scope_label(
                {"scope": {k: v for k, v in inspection.scope.items() if k != "user_id"}}
                | _tenant_of(inspection)
            ),
        },
    )


def _tenant_of(inspection) -> dict:
    if inspection.scope_kind != ScopeKind.TENANT:
        return {}
    membership = (
        inspection.member.tenant_memberships.select_related("tenant")
        .filter(tenant_id=inspection.target_tenant_id)
        .first()
    )
    return {"tenant": membership.tenant} if membership else {"tenant": _UnknownTenant()}


class _UnknownTenant:
    name = "a tenant the member has left"


def _actor_words(event) -> str:
    if event.actor_type == "operator":
        role = OperatorRole(event.actor_role).label if event.actor_role else "an operator"
        return f"another operator ({role})"
    return f"a scheduled job ({event.actor_role or event.actor_type})"


@content_free
@require_POST
@console_page()
@_not_found
def inspection_transition_view(request, pk, step):
    """One step, through `inspection_transition`; its refusals are shown, nothing changes."""
    operator = request.user
    inspection = inspection_get(operator=operator, inspection_id=pk)
    if step not in policy.STEP_ORDER:
        raise Http404("No such step.")
    form = RouteForm(request.POST, dsars=_open_dsars(inspection))
    if not form.is_valid():
        for errors in form.errors.values():
            for error in errors:
                messages.error(request, error)
        return redirect("console:inspection-detail", pk=pk)
    data = form.cleaned_data
    try:
        result = inspection_transition(
            inspection=inspection,
            to=step,
            operator=operator,
            signed_incident_ref=data["signed_incident_ref"]
            if step == _S.INCIDENT_ESCALATION
            else None,
            dsar_request_id=(data["dsar_request_id"] or None)
            if step == _S.DSAR_FULFILLMENT
            else None,
            investigation_carveout=(data["investigation_carveout"] or None)
            if step in (_S.GRANTED, _S.CLOSED)
            else None,
        )
    except DomainError as exc:
        _render_error(request, exc)
        return redirect("console:inspection-detail", pk=pk)
    state = result.inspection.state
    if step == _S.GRANTED and state == _S.DENIED:
        messages.error(request, f"The policy gate refused the grant: {result.gate_explanation}")
    else:
        messages.success(request, f"The request is now: {STATE_LABELS[state]}.")
    return redirect("console:inspection-detail", pk=pk)


@content_view(reads=[ContentKind.ENTRY], through=INSPECTION)
@require_http_methods(["GET", "POST"])
@console_page()
@_not_found
def inspection_read_view(request, pk):
    """The deliberate step before a read: GET shows what reading means; only the POST of
    its confirmation reads (`inspection_read`, recorded) and shows the snapshot."""
    operator = request.user
    inspection = inspection_get(operator=operator, inspection_id=pk)
    context = {
        "console_section": SECTION,
        "inspection": inspection,
        "member_told": _member_told(inspection),
        "refusal": policy.read_refusal(inspection, operator, now=timezone.now()),
    }
    form = ConfirmReadForm(request.POST if request.method == "POST" else None)
    if request.method == "GET" or not form.is_valid():
        status = 400 if form.is_bound else 200
        return render(
            request,
            "console/inspections/read_confirm.html",
            context | {"form": form},
            status=status,
        )
    try:
        view = inspection_read(inspection=inspection, operator=operator)
    except DomainError as exc:
        _render_error(request, exc)
        return redirect("console:inspection-detail", pk=pk)
    counts = view.redaction_counts
    return render(
        request,
        "console/inspections/snapshot.html",
        context
        | {
            "view": view,
            "entries": [i for i in view.items if i.content is not None],
            "redactions": [
                {"reason": reason, "label": label, "count": counts.get(reason, 0)}
                for reason, label in REDACTION_LABELS.items()
            ],
            "multi_actor_redacted": view.inspection.path != _S.DSAR_FULFILLMENT,
            "path_label": STATE_LABELS.get(view.inspection.path, ""),
            "note_form": CopilotNoteForm(),
        },
    )


@content_free
@require_POST
@console_page()
@_not_found
def inspection_note_view(request, pk):
    """A copilot note about the inspected member, through `inspection_copilot_note_add`."""
    operator = request.user
    inspection = inspection_get(operator=operator, inspection_id=pk)
    form = CopilotNoteForm(request.POST)
    if not form.is_valid():
        messages.error(request, "A note needs a kind and some text.")
        return redirect("console:inspection-detail", pk=pk)
    data = form.cleaned_data
    try:
        result = inspection_copilot_note_add(
            inspection=inspection,
            operator=operator,
            body=data["body"],
            category=data["category"],
            subject=data["subject"] or None,
        )
    except DomainError as exc:
        _render_error(request, exc)
    else:
        messages.success(
            request, "Note added." if result.created else "That note was already there."
        )
    return redirect("console:inspection-detail", pk=pk)


# --- The home page's section -----------------------------------------------------------------


def home_section(request) -> dict | None:
    """What waits for this operator: requests of theirs to route or decide, others'
    requests they approve as the second pair of eyes, and theirs that wait for one."""
    operator = request.user
    if not operator_role(operator):
        return None
    decide, second = [], []
    undecided = inspection_list(operator=operator).filter(state__in=policy.UNDECIDED_STATES)
    for inspection in undecided.order_by("created_at")[:100]:
        mine = inspection.operator_id == operator.pk
        four_eyes = policy.is_four_eyes(inspection)
        item = {
            "pk": inspection.pk,
            "state": inspection.state,
            "state_label": STATE_LABELS[inspection.state],
            "created_at": inspection.created_at,
            "member_email": inspection.member.email,
            "url": reverse("console:inspection-detail", args=[inspection.pk]),
        }
        if mine and four_eyes:
            second.append(item)
        elif mine:
            decide.append(item)
        elif four_eyes and policy.may_move(
            is_requester=False,
            role=operator_role(operator),
            from_state=inspection.state,
            to_state=_S.GRANTED,
            include_sensitive=inspection.include_sensitive,
        ):
            decide.append(item | {"as_second_approver": True})
    if not decide and not second:
        return None
    return {
        "template": "console/_home_inspections.html",
        "awaiting_decision": decide,
        "awaiting_second_approver": second,
        "list_url": reverse("console:inspections"),
    }
