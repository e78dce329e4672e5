"""The "Your data" page (/profile/memory/data/): the member's data-rights requests with
their receipts, and forms to ask for an export, an erasure or an access report.

Server-rendered over the same services the API uses; every form works without
JavaScript (POST → redirect → GET). The signed-in session is the identity check, so
requests made here are verified at once.
"""

from functools import wraps

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from datarights.apis import download_response
from datarights.enums import FINISHED_STATUSES, RequestKind, RequestStatus
from datarights.forms import AccessForm, AppealForm, DeleteForm, ExportForm
from datarights.policy import receipt_timing
from datarights.selectors import (
    datarights_active_code,
    datarights_request_get,
    datarights_request_list,
    datarights_trail,
)
from datarights.services import (
    datarights_appeal,
    datarights_cancel,
    datarights_download_open,
    datarights_request_submit,
    datarights_verify_session,
)
from iris_site.api.gated import MEMBER_OWN, content_free, content_view
from iris_site.audit.events import Actor
from iris_site.errors import DomainError
from memory.gate import ContentKind


def member_required(view):
    """Signed-in members only."""

    @login_required
    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if not request.user.is_member:
            raise PermissionDenied
        return view(request, *args, **kwargs)

    return wrapper


def _rows(request) -> list[dict]:
    now = timezone.now()
    rows = []
    for item in datarights_request_list(member_id=request.user.pk).order_by("-received_at")[:50]:
        timing = receipt_timing(due_at=item.due_at, now=now, finished_at=item.finished_at)
        rows.append(
            {
                "request": item,
                "timing": timing,
                "days_left": timing.ms_remaining_to_deadline // 86_400_000,
                "trail": list(datarights_trail(request=item)),
                "downloadable": item.kind == RequestKind.EXPORT
                and item.status == RequestStatus.COMPLETED
                and item.artifact_name
                and item.artifact_removed_at is None
                and (item.download_expires_at is None or now < item.download_expires_at),
                "verifiable": item.status == RequestStatus.SUBMITTED,
                "code": datarights_active_code(request=item)
                if item.status == RequestStatus.SUBMITTED
                else None,
                "cancellable": item.status in (RequestStatus.SUBMITTED, RequestStatus.VERIFIED)
                or (
                    item.status == RequestStatus.IN_PROGRESS
                    and item.grace_ends_at is not None
                    and now < item.grace_ends_at
                ),
                "appealable": item.status in (RequestStatus.COMPLETED, RequestStatus.FAILED),
            }
        )
    return rows


def _notices(rows: list[dict]) -> list[dict]:
    """What an operator decided that the member must be told: an extended deadline
    (while the work is open) and a failure with its reason."""
    notices = []
    for row in rows:
        item = row["request"]
        if item.extended_deadline_at and item.status not in FINISHED_STATUSES:
            notices.append({"kind": "extended", "request": item})
        if item.status == RequestStatus.FAILED and item.failure_reason:
            notices.append({"kind": "failed", "request": item})
    return notices


def _page(request, *, status: int = 200, errors: list[str] | None = None, **forms):
    rows = _rows(request)
    context = {
        "rows": rows,
        "notices": _notices(rows),
        "export_form": forms.get("export_form") or ExportForm(),
        "delete_form": forms.get("delete_form") or DeleteForm(user=request.user),
        "access_form": forms.get("access_form") or AccessForm(),
        "appeal_form": AppealForm(),
        "errors": errors or [],
        "error_form": next(iter(forms), None),
    }
    return render(request, "datarights/index.html", context, status=status)


def _domain_errors(exc: DomainError) -> list[str]:
    details = [f"{msg}" for messages_ in exc.fields.values() for msg in messages_]
    return [exc.message, *details]


@content_free
@require_GET
@member_required
def data_index(request):
    return _page(request)


def _submit(request, *, kind: str, form, form_name: str, passphrase=None, success: str):
    if not form.is_valid():
        return _page(request, status=400, **{form_name: form})
    try:
        datarights_request_submit(
            member=request.user,
            kind=kind,
            payload=form.payload() if hasattr(form, "payload") else form.cleaned_data,
            passphrase=passphrase,
            actor=Actor.of(request.user),
            signed_in_session=True,
        )
    except DomainError as exc:
        return _page(
            request, status=exc.status_code, errors=_domain_errors(exc), **{form_name: form}
        )
    messages.success(request, success)
    return redirect("datarights:index")


@content_free
@require_POST
@member_required
def data_export_view(request):
    form = ExportForm(request.POST)
    passphrase = request.POST.get("passphrase") or None
    return _submit(
        request,
        kind=RequestKind.EXPORT,
        form=form,
        form_name="export_form",
        passphrase=passphrase if request.POST.get("encrypted") else None,
        success="Export requested. It is being prepared; the download link appears here.",
    )


@content_free
@require_POST
@member_required
def data_delete_view(request):
    form = DeleteForm(request.POST, user=request.user)
    return _submit(
        request,
        kind=RequestKind.DELETE,
        form=form,
        form_name="delete_form",
        success="Deletion requested. Its receipt is below.",
    )


@content_free
@require_POST
@member_required
def data_access_view(request):
    form = AccessForm(request.POST)
    return _submit(
        request,
        kind=RequestKind.ACCESS,
        form=form,
        form_name="access_form",
        success="Access report requested. Its receipt is below.",
    )


def _own_or_404(request, request_id):
    found = datarights_request_get(member_id=request.user.pk, request_id=request_id)
    if found is None:
        raise Http404
    return found


def _attempt(request, action, success: str) -> None:
    try:
        action()
    except DomainError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, success)


@content_free
@require_POST
@member_required
def data_verify_view(request, request_id):
    own = _own_or_404(request, request_id)
    _attempt(
        request,
        lambda: datarights_verify_session(request=own, actor=Actor.of(request.user)),
        "Confirmed. Your request is being processed.",
    )
    return redirect("datarights:index")


@content_free
@require_POST
@member_required
def data_cancel_view(request, request_id):
    own = _own_or_404(request, request_id)
    _attempt(
        request,
        lambda: datarights_cancel(request=own, actor=Actor.of(request.user)),
        "Cancelled. Nothing was erased; hidden memories are back."
        if own.kind == RequestKind.DELETE
        else "Cancelled.",
    )
    return redirect("datarights:index")


@content_free
@require_POST
@member_required
def data_appeal_view(request, request_id):
    own = _own_or_404(request, request_id)
    form = AppealForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Say what you contest (up to 2000 characters).")
        return redirect("datarights:index")
    _attempt(
        request,
        lambda: datarights_appeal(
            request=own, reason=form.cleaned_data["reason"], actor=Actor.of(request.user)
        ),
        "Appeal recorded. An operator will review it.",
    )
    return redirect("datarights:index")


@content_view(reads=[ContentKind.ENTRY, ContentKind.STM, ContentKind.TOKEN], through=MEMBER_OWN)
@require_GET
@member_required
def data_download_view(request, request_id):
    own = _own_or_404(request, request_id)
    try:
        download = datarights_download_open(request=own, actor=Actor.of(request.user))
    except DomainError as exc:
        messages.error(request, exc.message)
        return redirect("datarights:index")
    return download_response(download)
