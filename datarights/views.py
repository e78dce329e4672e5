"""The "Your data" pages (/profile/memory/data/): a short overview, then one page per
right -- *Get a copy* (export/), *See what Iris holds and who looked* (access/) and
*Erase* (delete/) -- each with its form first and the history of requests of that kind
below it, collapsible. A pending request's status is a small fragment (status/) that
htmx polls every few seconds, so the download link appears without a reload.

Server-rendered over the same services the API uses; every form works without
JavaScript (POST → redirect → GET). The signed-in session is the identity check, so
requests made here are verified at once.
"""

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from datarights.apis import download_response
from datarights.enums import FINISHED_STATUSES, RequestKind, RequestStatus
from datarights.forms import AccessForm, AppealForm, DeleteForm, ExportForm
from datarights.policy import appeal_offered, receipt_timing
from datarights.selectors import (
    datarights_active_code,
    datarights_notified,
    datarights_request_get,
    datarights_request_list,
    datarights_trail,
)
from datarights.services import (
    datarights_appeal,
    datarights_cancel,
    datarights_download_open,
    datarights_request_submit_or_join,
    datarights_verify_session,
)
from datarights.summary import report_looks
from iris_site.api.gated import MEMBER_OWN, content_free, content_view
from iris_site.audit.events import Actor
from iris_site.errors import DomainError
from iris_site.permissions import member_required
from iris_site.stepup import mark_stepped_up
from memory.access.gate import ContentKind

# Each right's page: its template, and what the page is called in the overview.
PAGES = {
    RequestKind.EXPORT: "datarights/export.html",
    RequestKind.ACCESS: "datarights/access.html",
    RequestKind.DELETE: "datarights/delete.html",
}
# How often (seconds) a pending request's status fragment asks again.
POLL_SECONDS = 3
# A request still being worked on: its status fragment keeps polling.
POLLING_STATUSES = frozenset({RequestStatus.VERIFIED, RequestStatus.IN_PROGRESS})


def _row(item, now) -> dict:
    timing = receipt_timing(due_at=item.due_at, now=now, finished_at=item.finished_at)
    return {
        "request": item,
        "timing": timing,
        "days_left": timing.ms_remaining_to_deadline // 86_400_000,
        "trail": list(datarights_trail(request=item)),
        "notified": datarights_notified(request=item),
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
        "appealable": appeal_offered(kind=item.kind, status=item.status),
        # Not while a soft deletion waits out its grace period: nothing changes for days.
        "polling": item.status in POLLING_STATUSES
        and not (item.grace_ends_at is not None and now < item.grace_ends_at),
        "poll_seconds": POLL_SECONDS,
        "page_url": reverse(f"datarights:{item.kind}"),
        # The report's operator events in words, worded now (issue 47, item 3).
        "looks": report_looks((item.access_report or {}).get("operator_actions") or []),
    }


def _rows(request, kind: str | None = None) -> list[dict]:
    now = timezone.now()
    items = datarights_request_list(member_id=request.user.pk)
    if kind is not None:
        items = items.filter(kind=kind)
    rows = [_row(item, now) for item in items.order_by("-received_at")[:50]]
    for i, row in enumerate(rows):
        # Open: the newest (its report or result readable at once), and any still at work.
        row["open"] = i == 0 or row["polling"] or row["verifiable"]
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


def _page(request, kind: str, *, status: int = 200, errors: list[str] | None = None, **forms):
    """One right's page: its form, then the history of requests of that kind."""
    rows = _rows(request, kind)
    context = {
        "kind": kind,
        "rows": rows,
        "notices": _notices(rows),
        "export_form": forms.get("export_form") or ExportForm(),
        "delete_form": forms.get("delete_form") or DeleteForm(user=request.user),
        "access_form": forms.get("access_form") or AccessForm(),
        "appeal_form": AppealForm(),
        "errors": errors or [],
        "error_form": next(iter(forms), None),
    }
    return render(request, PAGES[kind], context, status=status)


def _domain_errors(exc: DomainError) -> list[str]:
    details = [f"{msg}" for messages_ in exc.fields.values() for msg in messages_]
    return [exc.message, *details]


@content_free
@require_GET
@member_required
def data_index(request):
    """The overview: the three rights, and what an operator decided about a request."""
    rows = _rows(request)
    counts = {kind: sum(1 for row in rows if row["request"].kind == kind) for kind in PAGES}
    return render(
        request,
        "datarights/index.html",
        {"notices": _notices(rows), "counts": counts},
    )


@content_free
@require_GET
@member_required
def data_status_view(request, request_id):
    """A request's status line (htmx polls it while the request is being worked on)."""
    own = _own_or_404(request, request_id)
    row = _row(own, timezone.now())
    # Polled by htmx: once finished, the report is swapped in beside the status (out of band).
    return render(request, "datarights/_status.html", {"row": row, "live": True})


def _submit(request, *, kind: str, form, form_name: str, passphrase=None, success: str):
    if not form.is_valid():
        return _page(request, kind, status=400, **{form_name: form})
    try:
        submission = datarights_request_submit_or_join(
            member=request.user,
            kind=kind,
            payload=form.payload() if hasattr(form, "payload") else form.cleaned_data,
            passphrase=passphrase,
            actor=Actor.of(request.user),
            signed_in_session=True,
        )
    except DomainError as exc:
        return _page(
            request, kind, status=exc.status_code, errors=_domain_errors(exc), **{form_name: form}
        )
    if submission.created:
        messages.success(request, success)
    else:  # a second click, a second tab: the request already running is the answer
        messages.info(request, "You already asked for this; it is still running, shown below.")
    return redirect(f"datarights:{kind}")


@content_free
@require_http_methods(["GET", "POST"])
@member_required
def data_export_view(request):
    if request.method == "GET":
        return _page(request, RequestKind.EXPORT)
    form = ExportForm(request.POST)
    passphrase = request.POST.get("passphrase") or None
    return _submit(
        request,
        kind=RequestKind.EXPORT,
        form=form,
        form_name="export_form",
        passphrase=passphrase if request.POST.get("encrypted") else None,
        success="Asked for a copy of your data. It is being prepared; the download link appears "
        "below when it is ready.",
    )


@content_free
@require_http_methods(["GET", "POST"])
@member_required
def data_delete_view(request):
    if request.method == "GET":
        return _page(request, RequestKind.DELETE)
    form = DeleteForm(request.POST, user=request.user)
    if form.is_valid():
        mark_stepped_up(request)  # its password is a step-up (`iris_site.stepup`)
    return _submit(
        request,
        kind=RequestKind.DELETE,
        form=form,
        form_name="delete_form",
        success="Asked Iris to erase your data. The receipt below says what is erased and when.",
    )


@content_free
@require_http_methods(["GET", "POST"])
@member_required
def data_access_view(request):
    if request.method == "GET":
        return _page(request, RequestKind.ACCESS)
    form = AccessForm(request.POST)
    return _submit(
        request,
        kind=RequestKind.ACCESS,
        form=form,
        form_name="access_form",
        success="Asked for a report of what Iris holds and who looked. It appears below "
        "when it is ready.",
    )


# A request's kind inside a sentence ("your copy request").
REQUEST_WORDS = {
    RequestKind.EXPORT: "copy",
    RequestKind.ACCESS: "report",
    RequestKind.DELETE: "erase",
}


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
        f"Confirmed it is you: your {REQUEST_WORDS.get(own.kind, 'data')} request is being "
        "processed.",
    )
    return redirect(f"datarights:{own.kind}")


@content_free
@require_POST
@member_required
def data_cancel_view(request, request_id):
    own = _own_or_404(request, request_id)
    _attempt(
        request,
        lambda: datarights_cancel(request=own, actor=Actor.of(request.user)),
        "Cancelled your erase request. Nothing was erased; hidden memories are back."
        if own.kind == RequestKind.DELETE
        else f"Cancelled your {REQUEST_WORDS.get(own.kind, 'data')} request.",
    )
    return redirect(f"datarights:{own.kind}")


@content_free
@require_POST
@member_required
def data_appeal_view(request, request_id):
    own = _own_or_404(request, request_id)
    form = AppealForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Say what you contest (up to 2000 characters).")
        return redirect(f"datarights:{own.kind}")
    _attempt(
        request,
        lambda: datarights_appeal(
            request=own, reason=form.cleaned_data["reason"], actor=Actor.of(request.user)
        ),
        "Your objection is recorded. An operator will review the request and answer here.",
    )
    return redirect(f"datarights:{own.kind}")


@content_view(reads=[ContentKind.ENTRY, ContentKind.STM, ContentKind.TOKEN], through=MEMBER_OWN)
@require_GET
@member_required
def data_download_view(request, request_id):
    own = _own_or_404(request, request_id)
    try:
        download = datarights_download_open(request=own, actor=Actor.of(request.user))
    except DomainError as exc:
        messages.error(request, exc.message)
        return redirect("datarights:export")
    return download_response(download)
