"""The member memory page (/profile/memory/): server-rendered over the same services
and selectors the API uses. Every form works without JavaScript (POST → redirect → GET);
domain refusals come back as messages, never as errors pages."""

import re
from datetime import timedelta

from django.contrib import messages
from django.core.paginator import Paginator
from django.db.models import Case, Value, When
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from consent.enums import (
    CATEGORY_PREFIX,
    CONSENT_TYPES,
    CaptureMethod,
    ConsentEventKind,
    LegalBasis,
    OptOutCategory,
)
from consent.policy import is_in_force
from consent.selectors import consent_states
from consent.services import consent_event_append
from consent.terms import CURRENT_TERMS_VERSION
from iris_site.api.gated import MEMBER_OWN, content_free, content_view
from iris_site.audit.events import Actor
from iris_site.enums import Consumer
from iris_site.errors import Conflict, DomainError, NotFound
from iris_site.permissions import member_required
from iris_site.stepup import PasswordConfirmForm, mark_stepped_up, step_up_page
from memory.access.gate import ContentKind
from memory.contracts import SCOPE_KEY_ADAPTER
from memory.controls import (
    AUTO_FORGET_KINDS,
    AUTO_FORGET_MONTHS,
    auto_forget_shortens,
    member_memory_settings_get,
    months_to_days,
)
from memory.enums import ScopeKind
from memory.forgetting.selected import memory_forget_selected, memory_forget_selection
from memory.forgetting.services import (
    memory_clear_cancel,
    memory_clear_request,
    memory_forget_category,
    memory_tombstone,
)
from memory.http.consequences import (
    consequence_of,
    forgotten_count,
    hidden_after,
    member_usable_kinds,
)
from memory.http.forms import (
    EntryEditForm,
    EntryFilterForm,
    ForgetCategoryForm,
    PauseForm,
    ScopeChangeForm,
)
from memory.labels import (
    SCOPE_ORDER,
    category_label,
    consent_label,
    consent_status_label,
    lower_first,
    opt_out_label,
    scope_label,
)
from memory.models import MemoryNotice
from memory.pauses import memory_pause, memory_resume
from memory.policy.scopes import evaluate_scope_change
from memory.promotions import PromotionAnswer, memory_promotion_answer
from memory.reconfirm import ReconfirmAnswer, memory_reconfirm_answer
from memory.scopes import OPT_OUT_WORDS, member_scope_policies, opt_out_rows, scope_rows
from memory.selectors import (
    ensure_settings_open,
    memory_entry_get,
    memory_entry_list,
    memory_notebook_ids,
    memory_notice_list,
    memory_off_the_record,
    memory_pending_clear,
    memory_recall_list,
    memory_revision_list,
    multi_actor_of,
    suppression_of,
)
from memory.services import (
    member_opt_out_set,
    memory_change_scope,
    memory_edit,
    memory_edit_preview,
    memory_notice_answer,
    memory_off_the_record_set,
)
from memory.sweeps.auto_forget import member_memory_settings_set

PAGE_SIZE = 20


def _entry_or_404(request, entry_id):
    entry = memory_entry_get(member_id=request.user.pk, entry_id=entry_id)
    if entry is None or entry.lifecycle == "tombstoned":
        raise Http404
    return entry


def _attempt(request, action, success: str) -> bool:
    """Run a service call; a refusal becomes an error message instead of a 500."""
    try:
        action()
    except DomainError as exc:
        messages.error(request, exc.message)
        return False
    messages.success(request, success)
    return True


@content_view(reads=[ContentKind.ENTRY], through=MEMBER_OWN)
@require_GET
@member_required
def memory_index(request):
    form = EntryFilterForm(request.GET or None)
    filters = {k: v for k, v in form.cleaned_data.items() if v} if form.is_valid() else {}
    # Grouped in the member's order (their profile first), not by internal key.
    scope_rank = Case(
        *(When(scope_kind=kind, then=Value(i)) for i, kind in enumerate(SCOPE_ORDER)),
        default=Value(len(SCOPE_ORDER)),
    )
    entries = memory_entry_list(member_id=request.user.pk, filters=filters).order_by(
        scope_rank, "-updated_at", "id"
    )
    page = Paginator(entries, PAGE_SIZE).get_page(request.GET.get("page"))
    groups: dict[str, list] = {}
    for entry in page.object_list:
        groups.setdefault(scope_label(entry.scope_kind), []).append(entry)
    query = request.GET.copy()
    query.pop("page", None)
    return render(
        request,
        "memory/index.html",
        {
            "form": form,
            "page": page,
            "groups": groups,
            "filtered": bool(filters),
            "query_string": query.urlencode(),
            "pending_clear": memory_pending_clear(member_id=request.user.pk),
            "open_notices": memory_notice_list(member_id=request.user.pk).filter(state="open"),
        },
    )


CONTROLS = "memory:controls"


def _plural(n: int, one: str = "memory", many: str = "memories") -> str:
    return f"{n} {one if n == 1 else many}"


@content_free
@require_GET
@member_required
def memory_controls_view(request):
    """What Iris may do (issue 47): the member's switches, apart from their memories, each
    with what it does next to it. While a full clear waits, the page says so first and
    offers only the cancel: no switch would mean anything until then."""
    member_id = request.user.pk
    pending = memory_pending_clear(member_id=member_id)
    context = {"pending_clear": pending}
    if pending is None:
        rows = opt_out_rows(member_id=member_id)
        context.update(
            {
                "scope_rows": scope_rows(member_scope_policies(member_id=member_id)),
                "opt_out_rows": [
                    {"row": row, "hides": None if row.opted_out else _opt_out_hides(member_id, row)}
                    for row in rows
                ],
                "memory_settings": memory_settings_context(member_id),
                "in_use": memory_entry_list(member_id=member_id).filter(lifecycle="active").count(),
            }
        )
    return render(request, "memory/controls.html", context)


_DIGITS = re.compile(r"[0-9]{1,9}")


def shown_count(value: str) -> int | None:
    """A whole number as a form sends it (ASCII digits only: "²" is a digit to
    `str.isdigit` but not to `int`); None for anything else."""
    return int(value) if _DIGITS.fullmatch(value) else None


def _refused_while_clear_pending(request):
    """While a full clear waits, the switches are put aside (the page hides them and says
    so): one posted anyway is refused, nothing changed, and the page says why. The page
    and the server agree: what the member cannot see, they cannot change unseen."""
    try:
        ensure_settings_open(member_id=request.user.pk)
    except Conflict as refused:
        messages.error(request, refused.message)
        return redirect(CONTROLS)
    return None


def _opt_out_hides(member_id, row) -> int:
    return consequence_of(member_id, opt_out=row.category).hidden


_SAID = {"year": "Y", "month": "F Y", "day": "j F Y"}


def fact_time_text(entry) -> str:
    """When the memory was true, as the member said it ("true since 2019 · Iris learned
    this 3 June 2026"); "" where they said no time (then it is when Iris learned it, which
    the page already says)."""
    start, end = entry.valid_from_precision, entry.valid_to_precision
    if not (start or end):
        return ""
    since = date_format(entry.valid_from, _SAID[start]) if start else ""
    until = date_format(entry.valid_to, _SAID[end]) if end else ""
    if since and until:
        when = f"true from {since} until {until}"
    elif since:
        when = f"true since {since}"
    else:
        when = f"true until {until} (you did not say since when)"
    return f"{when} · Iris learned this {date_format(entry.created_at, 'j F Y')}"


@content_view(reads=[ContentKind.ENTRY], through=MEMBER_OWN)
@require_GET
@member_required
def memory_detail(request, entry_id):
    entry = _entry_or_404(request, entry_id)
    return render(
        request,
        "memory/detail.html",
        {
            "entry": entry,
            "suppression": suppression_of(entry),
            "multi_actor": multi_actor_of(entry),
            "recalls": memory_recall_list(member_id=request.user.pk, entry_id=entry.pk)[:10],
            "revision_count": entry.revision_count,
            "pause_form": PauseForm(),
            "fact_time": fact_time_text(entry),
        },
    )


@content_view(reads=[ContentKind.ENTRY], through=MEMBER_OWN)
@require_GET
@member_required
def memory_history(request, entry_id):
    entry = _entry_or_404(request, entry_id)
    revisions = memory_revision_list(member_id=request.user.pk, entry_id=entry.pk)
    return render(request, "memory/history.html", {"entry": entry, "revisions": revisions})


@content_view(reads=[ContentKind.ENTRY], through=MEMBER_OWN)
@require_http_methods(["GET", "POST"])
@member_required
def memory_edit_view(request, entry_id):
    entry = _entry_or_404(request, entry_id)
    initial = {
        "body": entry.body,
        "subject": entry.subject,
        "category": entry.category,
        "revision_id": entry.revision_id,
    }
    form = EntryEditForm(request.POST or None, initial=initial)
    preview = None
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        if "preview" in request.POST:
            try:
                preview = memory_edit_preview(
                    entry=entry,
                    category=data["category"],
                    subject=data["subject"],
                    revision_id=data["revision_id"],
                )
            except DomainError as exc:
                messages.error(request, exc.message)
        elif _attempt(
            request,
            lambda: memory_edit(entry=entry, actor=Actor.of(request.user), **data),
            "Saved your change to this memory. The previous version stays in its history.",
        ):
            return redirect("memory:detail", entry_id=entry.pk)
    return render(request, "memory/edit.html", {"entry": entry, "form": form, "preview": preview})


@content_view(reads=[ContentKind.ENTRY], through=MEMBER_OWN)
@require_POST
@member_required
def memory_pause_view(request, entry_id):
    entry = _entry_or_404(request, entry_id)
    form = PauseForm(request.POST)
    if form.is_valid():
        _attempt(
            request,
            lambda: memory_pause(
                entry=entry, actor=Actor.of(request.user), ends_at=form.cleaned_data["ends_at"]
            ),
            "Paused this memory"
            + (
                f" until {date_format(form.cleaned_data['ends_at'], 'j F Y, H:i')} UTC"
                if form.cleaned_data["ends_at"]
                else ""
            )
            + ". The assistant will not bring it up until you resume it.",
        )
    else:
        messages.error(request, "Choose a time in the future, or leave it empty.")
    return redirect("memory:detail", entry_id=entry.pk)


@content_view(reads=[ContentKind.ENTRY], through=MEMBER_OWN)
@require_POST
@member_required
def memory_resume_view(request, entry_id):
    entry = _entry_or_404(request, entry_id)
    _attempt(
        request,
        lambda: memory_resume(entry=entry, actor=Actor.of(request.user)),
        "Resumed this memory. The assistant may bring it up again.",
    )
    return redirect("memory:detail", entry_id=entry.pk)


@content_view(reads=[ContentKind.ENTRY], through=MEMBER_OWN)
@require_http_methods(["GET", "POST"])
@member_required
def memory_forget_view(request, entry_id):
    entry = _entry_or_404(request, entry_id)
    confirm = step_up_page(request, action="forget this memory")
    if confirm is not None:
        return confirm
    if request.method == "POST" and _attempt(
        request,
        lambda: memory_tombstone(entry=entry, actor=Actor.of(request.user)),
        f"Forgot 1 memory about {lower_first(category_label(entry.category))}: its text is "
        "erased from Iris now, with its history, the conversation it came from and every "
        "copy; only a note that a memory was forgotten, and when, remains. Only you can tell "
        "it again.",
    ):
        return redirect("memory:index")
    return render(request, "memory/forget.html", {"entry": entry})


@content_view(reads=[ContentKind.ENTRY], through=MEMBER_OWN)
@require_http_methods(["GET", "POST"])
@member_required
def memory_scope_view(request, entry_id):
    entry = _entry_or_404(request, entry_id)
    options = [
        (kind, evaluate_scope_change(entry.scope_kind, kind))
        for kind in ScopeKind.values
        if kind != entry.scope_kind
    ]
    allowed = [kind for kind, decision in options if decision.allowed]
    form = ScopeChangeForm(
        request.POST or None,
        allowed_kinds=allowed,
        notebooks=memory_notebook_ids(member_id=request.user.pk),
    )
    if request.method == "POST" and form.is_valid():
        try:
            scope = SCOPE_KEY_ADAPTER.validate_python(form.scope(request.user.pk))
        except ValueError:
            field = (
                "session_id" if form.cleaned_data["kind"] == ScopeKind.SESSION else "new_notebook"
            )
            form.add_error(field, "Use letters, digits, dots, dashes or underscores.")
        else:
            if _attempt(
                request,
                lambda: memory_change_scope(entry=entry, scope=scope, actor=Actor.of(request.user)),
                f"Moved this memory to “{scope_label(scope.kind)}”.",
            ):
                return redirect("memory:detail", entry_id=entry.pk)
    unavailable = [
        (scope_label(kind), decision.explanation)
        for kind, decision in options
        if not decision.allowed
    ]
    return render(
        request,
        "memory/scope.html",
        {"entry": entry, "form": form, "unavailable": unavailable},
    )


@content_view(reads=[ContentKind.ENTRY], through=MEMBER_OWN)
@require_http_methods(["GET", "POST"])
@member_required
def memory_forget_category_view(request):
    form = ForgetCategoryForm(request.POST or request.GET or None)
    count = None
    if form.is_valid():
        category = form.cleaned_data["category"]
        count = memory_entry_list(member_id=request.user.pk, filters={"category": category}).count()
        shown = request.POST.get("forgets")
        if (
            request.method == "POST"
            and shown is not None
            and (shown_count(shown) is None or count > shown_count(shown))
        ):
            # Forgetting cannot be undone: a memory kept after the page counted what goes
            # is not forgotten unseen. Nothing is forgotten; the page counts again.
            messages.error(
                request,
                "Since this page was shown, Iris kept more memories of this category. "
                "Nothing was forgotten: check how many it forgets now.",
            )
            return redirect(reverse("memory:forget-category") + f"?category={category}")
        if request.method == "POST" and "confirm" in request.POST:
            confirm = step_up_page(request, action="forget every memory of this category")
            if confirm is not None:
                return confirm
            _attempt(
                request,
                lambda: memory_forget_category(
                    member=request.user, category=category, actor=Actor.of(request.user)
                ),
                f"Forgot {count} {'memory' if count == 1 else 'memories'} about "
                f"{lower_first(category_label(category))}, and the summaries made from them. "
                "Their text is erased from Iris now, with its history and every copy; only "
                "a note that they were forgotten, and when, remains.",
            )
            return redirect("memory:index")
    label = category_label(form.cleaned_data["category"]) if count is not None else ""
    return render(
        request,
        "memory/forget_category.html",
        {"form": form, "count": count, "category_label": label},
    )


@content_view(reads=[ContentKind.ENTRY], through=MEMBER_OWN)
@require_http_methods(["GET", "POST"])
@member_required
def memory_clear_view(request):
    pending = memory_pending_clear(member_id=request.user.pk)
    form = PasswordConfirmForm(request.POST or None, user=request.user)
    if request.method == "POST":
        if "cancel" in request.POST:
            _attempt(
                request,
                lambda: memory_clear_cancel(member=request.user, actor=Actor.of(request.user)),
                "Cancelled the erase. Your memories are back exactly as they were.",
            )
            return redirect("memory:index")
        if form.is_valid():
            mark_stepped_up(request)  # the password on this form is a step-up too
            _attempt(
                request,
                lambda: memory_clear_request(member=request.user, actor=Actor.of(request.user)),
                "Erase requested: everything Iris remembers about you is hidden now and "
                "nothing new is stored; it will all be erased when the grace period ends, "
                "unless you cancel before then.",
            )
            return redirect("memory:clear")
    return render(request, "memory/clear.html", {"form": form, "pending": pending})


@content_free
@require_POST
@member_required
def memory_off_the_record_view(request):
    active = request.POST.get("active") == "on"
    _attempt(
        request,
        lambda: memory_off_the_record_set(
            member=request.user, active=active, actor=Actor.of(request.user)
        ),
        "Off the record: nothing new is remembered until you turn it off."
        if active
        else "Back on the record.",
    )
    target = request.POST.get("next") or ""
    if not url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        target = reverse(CONTROLS)
    return redirect(target)


@content_view(reads=[ContentKind.ENTRY], through=MEMBER_OWN)
@require_http_methods(["GET", "POST"])
@member_required
def memory_opt_out_view(request):
    """Turn one category of memory off (`state=off`) or back on (`state=on`). Off is asked
    first (GET, or a POST without `confirm`): the page says which kinds of memory stop and
    how many of the member's memories every assistant stops seeing, with a few of them;
    one confirmation turns it off, and the message says how many were hidden. Back on is
    one click: it hides nothing."""
    refused = _refused_while_clear_pending(request)
    if refused is not None:
        return refused
    data = request.POST if request.method == "POST" else request.GET
    category, state = data.get("category"), data.get("state")
    if category not in OptOutCategory.values or state not in ("on", "off"):
        messages.error(request, "Choose a kind of memory to turn off or back on.")
        return redirect(CONTROLS)
    if request.method != "POST" and state == "on":
        # A GET changes nothing: only the page's own form (a POST, CSRF-checked) turns a
        # kind of memory back on; a link or an image elsewhere cannot.
        return redirect(CONTROLS)
    label = opt_out_label(category)
    if state == "off" and not (request.method == "POST" and "confirm" in request.POST):
        if request.method == "POST":
            return redirect(reverse("memory:opt-out") + f"?category={category}&state=off")
        return render(
            request,
            "memory/opt_out_confirm.html",
            {
                "category": category,
                "label": label,
                "consequence": consequence_of(request.user.pk, opt_out=category),
                "explanation": OPT_OUT_WORDS[category],
            },
        )
    before = member_usable_kinds(request.user.pk)
    try:
        member_opt_out_set(
            member=request.user,
            category=category,
            opted_out=state == "off",
            witness="session",
            actor=Actor.of(request.user),
        )
    except DomainError as exc:
        messages.error(request, exc.message)
        return redirect(CONTROLS)
    if state == "off":
        hidden = hidden_after(request.user.pk, before=before)
        messages.success(
            request,
            f"Turned off “{label}”: nothing new is kept there, and "
            f"{_plural(hidden)} {'is' if hidden == 1 else 'are'} hidden from every "
            "assistant until you turn it back on. Nothing was erased.",
        )
    else:
        messages.success(request, f"“{label}” is back on.")
    return redirect(CONTROLS)


def _consent_rows(member_id):
    now = timezone.now()
    states = consent_states(member_id=member_id)
    rows = []
    for consent_type in CONSENT_TYPES:
        state = states.get(consent_type)
        is_category = consent_type.startswith(CATEGORY_PREFIX)
        rows.append(
            {
                "type": consent_type,
                "label": consent_label(consent_type),
                "sensitive": is_category,
                "granted": state is not None and is_in_force(state, now),
                "status": consent_status_label(state.status if state else None),
            }
        )
    return rows


@content_free
@require_GET
@member_required
def consent_index(request):
    rows = _consent_rows(request.user.pk)
    return render(
        request,
        "memory/consents.html",
        {
            "general": [r for r in rows if not r["sensitive"]],
            "categories": [r for r in rows if r["sensitive"]],
        },
    )


def _record_consent(request, consent_type: str, kind: str) -> None:
    """A grant (a withdrawal goes through `consent_withdraw_view`'s confirmation)."""
    _attempt(
        request,
        lambda: consent_event_append(
            member=request.user,
            consent_type=consent_type,
            kind=kind,
            legal_basis=LegalBasis.CONSENT,
            capture_method=CaptureMethod.SETTINGS_TOGGLE,
            terms_version=CURRENT_TERMS_VERSION,
            witness="session",
            actor=Actor.of(request.user),
        ),
        f"Consent given: “{consent_label(consent_type)}”."
        if kind == ConsentEventKind.GRANT
        else f"Consent withdrawn: “{consent_label(consent_type)}”.",
    )


@content_free
@require_POST
@member_required
def consent_grant_view(request, consent_type):
    if consent_type not in CONSENT_TYPES:
        raise Http404
    _record_consent(request, consent_type, ConsentEventKind.GRANT)
    return redirect("memory:consents")


@content_view(reads=[ContentKind.ENTRY], through=MEMBER_OWN)
@require_http_methods(["GET", "POST"])
@member_required
def consent_withdraw_view(request, consent_type):
    """Withdrawing any consent is one confirmation (GDPR Art. 7(3): as easy as granting,
    with its consequences): the page first says what stops, which kinds of memory turn
    off, and how many of the member's memories are hidden or forgotten, with a few of
    them. A POST without `confirm` comes back here. The message after says what was done,
    counted again from what the server holds."""
    if consent_type not in CONSENT_TYPES:
        raise Http404
    member_id = request.user.pk
    if request.method == "POST" and "confirm" in request.POST:
        will_forget = forgotten_count(member_id, consent_type)
        shown = request.POST.get("forgets")
        if shown is not None and (shown_count(shown) is None or will_forget > shown_count(shown)):
            # Forgetting cannot be undone: a memory kept after the page counted what goes
            # is not forgotten unseen. Nothing is withdrawn; the page counts again.
            messages.error(
                request,
                "Since this page was shown, Iris kept more memories that withdrawing this "
                "would forget. Nothing was withdrawn: check what it forgets now.",
            )
            return redirect("memory:consent-withdraw", consent_type=consent_type)
        if will_forget:  # the withdrawal forgets that memory: irreversible
            confirm = step_up_page(request, action="withdraw and forget that memory")
            if confirm is not None:
                return confirm
        before_kinds = member_usable_kinds(member_id)
        before_forgettable = will_forget
        label = consent_label(consent_type)
        try:
            consent_event_append(
                member=request.user,
                consent_type=consent_type,
                kind=ConsentEventKind.WITHDRAWAL,
                legal_basis=LegalBasis.CONSENT,
                capture_method=CaptureMethod.SETTINGS_TOGGLE,
                terms_version=CURRENT_TERMS_VERSION,
                witness="session",
                actor=Actor.of(request.user),
            )
        except DomainError as exc:
            messages.error(request, exc.message)
            return redirect("memory:consents")
        forgotten = before_forgettable - forgotten_count(member_id, consent_type)
        hidden = hidden_after(member_id, before=before_kinds)
        done = [f"Consent withdrawn: “{label}”."]
        if forgotten:
            done.append(f"Forgot {_plural(forgotten)}: their text is erased from Iris now.")
        if hidden:
            done.append(
                f"{_plural(hidden).capitalize()} {'is' if hidden == 1 else 'are'} hidden from "
                "every assistant until you allow it again."
            )
        if not (forgotten or hidden):
            done.append("No memory was hidden or forgotten.")
        messages.success(request, " ".join(done))
        return redirect("memory:consents")
    if request.method == "POST":
        return redirect("memory:consent-withdraw", consent_type=consent_type)
    return render(
        request,
        "memory/consent_withdraw.html",
        {
            "consent_type": consent_type,
            "label": consent_label(consent_type),
            "consequence": consequence_of(member_id, withdraw=consent_type),
        },
    )


@content_view(reads=[ContentKind.ENTRY], through=MEMBER_OWN)
@require_GET
@member_required
def notice_index(request):
    return render(
        request,
        "memory/notices.html",
        {"notices": memory_notice_list(member_id=request.user.pk).select_related("proposed_entry")},
    )


@content_view(reads=[ContentKind.ENTRY], through=MEMBER_OWN)
@require_POST
@member_required
def notice_answer_view(request, notice_id):
    notice = memory_notice_list(member_id=request.user.pk).filter(pk=notice_id).first()
    if notice is None:
        raise Http404
    answer = request.POST.get("answer")
    if notice.kind == MemoryNotice.Kind.RECONFIRM:
        if answer == ReconfirmAnswer.FORGET:
            confirm = step_up_page(request, action="forget the memory the assistant asked about")
            if confirm is not None:
                return confirm
        _attempt(
            request,
            lambda: memory_reconfirm_answer(
                notice=notice, answer=answer, actor=Actor.of(request.user)
            ),
            "Confirmed: Iris keeps it as your word."
            if answer == ReconfirmAnswer.CONFIRM
            else "Forgot 1 memory: the one the assistant asked about.",
        )
        return redirect("memory:notices")
    if notice.kind == MemoryNotice.Kind.PROMOTION:
        if answer == PromotionAnswer.FORGET:
            confirm = step_up_page(request, action="forget the memory Iris added to About you")
            if confirm is not None:
                return confirm
        _attempt(
            request,
            lambda: memory_promotion_answer(
                notice=notice, answer=answer, actor=Actor.of(request.user)
            ),
            "Kept: it stays in “About you”, as your word."
            if answer == PromotionAnswer.KEEP
            else "Forgot 1 memory: the one Iris added to “About you”.",
        )
        return redirect("memory:notices")
    if answer not in ("update", "keep"):
        # A conflict question is answered "update" or "keep" only: another question's
        # choice ("forget", "confirm") or none is refused, the question left open.
        messages.error(request, "Choose “Update my memory” or “Keep what I said”.")
        return redirect("memory:notices")
    accept = answer == "update"
    _attempt(
        request,
        lambda: memory_notice_answer(notice=notice, accept=accept, actor=Actor.of(request.user)),
        # Accepting writes into the corrected memory's scope (`memory_notice_answer`).
        "Updated your memory to what the assistant now thinks, as your own word, kept "
        f"under “{scope_label(notice.entry.scope_kind)}”."
        if accept
        else "Kept what you said before; your memory is unchanged.",
    )
    return redirect("memory:notices")


def off_the_record_context(request) -> dict:
    """Context processor: the banner shows on every page while off the record."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated or not getattr(user, "is_member", False):
        return {}
    return {"off_the_record": memory_off_the_record(member_id=user.pk)}


# --- How Iris uses your memory; forget several at once (issue 19, item 7) ------------------


def memory_settings_context(member_id) -> dict:
    """What the "How Iris uses your memory" section shows (`memory/_memory_settings.html`)."""
    own = member_memory_settings_get(member_id=member_id)
    return {
        "stop_using": own.stop_using,
        "auto_forget": [
            {
                "scope": kind,
                "label": scope_label(kind),
                "months": own.auto_forget_months.get(kind),
                # What each choice forgets at once (issue 47): already unchanged that long.
                "choices": [
                    {"months": n, "older": _older_than(member_id, kind, n)}
                    for n in AUTO_FORGET_MONTHS
                ],
            }
            for kind in AUTO_FORGET_KINDS
        ],
        "month_choices": AUTO_FORGET_MONTHS,
        "surfaces": [
            {"consumer": value, "label": label, "paused": value in own.paused_consumers}
            for value, label in Consumer.choices
        ],
        "paused_labels": [
            label for value, label in Consumer.choices if value in own.paused_consumers
        ],
    }


def _older_than(member_id, kind: str, months: int) -> int:
    """How many of the member's memories of a kind the auto-forget sweep would erase at
    once for this choice (`member_auto_forget_apply`: unchanged for longer)."""
    cutoff = timezone.now() - timedelta(days=months_to_days(months))
    return (
        memory_entry_list(member_id=member_id)
        .filter(scope_kind=kind, updated_at__lt=cutoff)
        .count()
    )


def _settings_with(member_id, **changes):
    own = member_memory_settings_get(member_id=member_id)
    values = {
        "stop_using": own.stop_using,
        "auto_forget_months": dict(own.auto_forget_months),
        "paused_consumers": own.paused_consumers,
    }
    values.update(changes)
    return values


@content_free
@require_POST
@member_required
def memory_settings_view(request):
    """One of the three controls of "How Iris uses your memory" (`part`), the others kept."""
    refused = _refused_while_clear_pending(request)
    if refused is not None:
        return refused
    part, member = request.POST.get("part"), request.user
    if part == "stop-using":
        stop = request.POST.get("stop_using") == "on"
        changes = {"stop_using": stop}
        success = (
            "Iris has stopped using your memories: no assistant recalls any of them until you "
            "turn this off. What you allow is still remembered."
            if stop
            else "Iris uses your memories again."
        )
    elif part == "auto-forget":
        months = {}
        for kind in AUTO_FORGET_KINDS:
            raw = request.POST.get(f"auto_forget_{kind}", "never")
            if raw == "never":
                continue
            if shown_count(raw) not in AUTO_FORGET_MONTHS:
                messages.error(request, "Choose 3, 12 or 18 months, or never.")
                return redirect(CONTROLS)
            months[kind] = int(raw)
        changes = {"auto_forget_months": months}
        if auto_forget_shortens(member_memory_settings_get(member_id=member.pk), months):
            # What is already older is forgotten at once: a recent re-authentication.
            confirm = step_up_page(request, action="forget what is older than that")
            if confirm is not None:
                return confirm
        chosen = [
            f"{lower_first(scope_label(kind))} after {n} months" for kind, n in months.items()
        ]
        success = (
            "Saved. Iris will forget automatically: " + "; ".join(chosen) + "."
            if chosen
            else "Saved. Iris forgets nothing automatically beyond its usual rules."
        )
    elif part == "surfaces":
        paused = [c for c in request.POST.getlist("paused") if c in Consumer.values]
        changes = {"paused_consumers": paused}
        labels = [label for value, label in Consumer.choices if value in paused]
        success = (
            "Paused: " + ", ".join(labels) + ". They neither read nor add to your memory "
            "until you resume them."
            if labels
            else "No assistant is paused."
        )
    else:
        messages.error(request, "Choose a setting to change.")
        return redirect(CONTROLS)
    before = memory_entry_list(member_id=member.pk).count()
    try:
        member_memory_settings_set(
            member=member, actor=Actor.of(member), **_settings_with(member.pk, **changes)
        )
    except DomainError as exc:
        messages.error(request, exc.message)
        return redirect(CONTROLS)
    if part == "auto-forget" and (gone := before - memory_entry_list(member_id=member.pk).count()):
        success += f" Forgot {_plural(gone)} already older than that: erased now."
    messages.success(request, success)
    return redirect(CONTROLS)


def forgotten_summary(by_category: dict[str, int]) -> str:
    """ "Forgot 2 memories: 1 about medical matters, 1 about work." (categories, no text)"""
    total = sum(by_category.values())
    parts = [
        f"{n} about {lower_first(category_label(category))}"
        for category, n in sorted(by_category.items(), key=lambda kv: (-kv[1], kv[0]))
    ]
    noun = "memory" if total == 1 else "memories"
    return f"Forgot {total} {noun}: " + ", ".join(parts) + ". Their text is erased from Iris now."


@content_view(reads=[ContentKind.ENTRY], through=MEMBER_OWN)
@require_http_methods(["GET", "POST"])
@member_required
def memory_forget_selected_view(request):
    """GET: the one confirmation, listing the memories picked on the memory page. POST:
    forget all of them, or none."""
    ids = request.POST.getlist("ids") if request.method == "POST" else request.GET.getlist("ids")
    if not ids:
        messages.error(request, "Pick the memories to forget first.")
        return redirect("memory:index")
    try:
        entries = memory_forget_selection(member=request.user, entry_ids=ids)
    except NotFound:
        raise Http404 from None
    except DomainError as exc:
        messages.error(request, exc.message)
        return redirect("memory:index")
    confirm = step_up_page(request, action="forget these memories")
    if confirm is not None:
        return confirm
    if request.method == "POST":
        outcome = {}

        def forget():
            outcome["result"] = memory_forget_selected(
                member=request.user, entry_ids=ids, actor=Actor.of(request.user)
            )

        try:
            forget()
        except DomainError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(request, forgotten_summary(outcome["result"].by_category))
        return redirect("memory:index")
    return render(request, "memory/forget_many.html", {"entries": entries})
