"""Your conversations (/profile/memory/conversations/): each conversation the member's
turns were logged in (its session id, how many turns, its first and last turn's time: no
turn text), and "forget this conversation", over the same query and service as the
member API (`memory.http.conversations`, `memory.forgetting.conversations`)."""

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_http_methods

from iris_site.api.gated import content_free
from iris_site.audit.events import Actor
from iris_site.errors import DomainError, NotFound
from iris_site.permissions import member_required
from iris_site.stepup import step_up_page
from memory.forgetting.conversations import (
    TURN_STORE,
    conversation_entry_ids,
    memory_forget_conversation,
)
from memory.forgetting.erasure import memory_erasure_residue
from memory.forgetting.stores import SHORT_TERM_MEMORY, ExtentKind
from memory.http.apis import session_id_of
from memory.http.conversations import member_conversations

PAGE_SIZE = 20


def _session_or_404(value: str) -> str:
    try:
        session_id = session_id_of(value)
    except DomainError:
        raise Http404 from None
    if not session_id:
        raise Http404
    return session_id


def _what_goes(request, session_id: str) -> dict:
    """What forgetting the conversation would erase now, counted the way the service
    counts it; 404 when nothing of the member's is left of it (as the service decides)."""
    entries = conversation_entry_ids(member_id=request.user.pk, session_id=session_id)
    residue = memory_erasure_residue(
        member_id=request.user.pk,
        entry_ids=(),
        texts=(),
        purge=False,
        kind=ExtentKind.CONVERSATION,
        sessions=[session_id],
    )
    if not entries and not residue:
        raise Http404
    return {
        "turns": residue.get(TURN_STORE, 0),
        "short_term_rows": residue.get(SHORT_TERM_MEMORY, 0),
        "entries": len(entries),
    }


def _forgotten_message(result) -> str:
    parts = [
        ngettext("%(n)d turn", "%(n)d turns", result.turns) % {"n": result.turns},
        ngettext("%(n)d short-term note", "%(n)d short-term notes", result.short_term_rows)
        % {"n": result.short_term_rows},
        ngettext(
            "%(n)d memory that came only from it",
            "%(n)d memories that came only from it",
            result.entries,
        )
        % {"n": result.entries},
    ]
    return _(
        "Forgot this conversation: %(turns)s, %(notes)s and %(entries)s erased. Iris keeps "
        "nothing of what was said, only ids, times and keyed digests."
    ) % {"turns": parts[0], "notes": parts[1], "entries": parts[2]}


@content_free
@require_GET
@member_required
def conversation_index(request):
    conversations = member_conversations(member_id=request.user.pk).order_by(
        "-last_turn_at", "session_id"
    )
    page = Paginator(conversations, PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "memory/conversations.html", {"page": page})


@content_free
@require_http_methods(["GET", "POST"])
@member_required
def conversation_forget(request, session_id):
    session_id = _session_or_404(session_id)
    confirm = step_up_page(request, action="forget this conversation")
    if confirm is not None:
        return confirm
    if request.method == "POST":
        try:
            result = memory_forget_conversation(
                member=request.user, session_id=session_id, actor=Actor.of(request.user)
            )
        except NotFound:
            raise Http404 from None
        except DomainError as exc:
            messages.error(request, exc.message)
            return redirect("memory:conversations")
        messages.success(request, _forgotten_message(result))
        return redirect("memory:conversations")
    goes = _what_goes(request, session_id)  # 404 before anything else is read
    listed = member_conversations(member_id=request.user.pk).filter(session_id=session_id)
    conversation = next(iter(listed), None)
    return render(
        request,
        "memory/conversation_forget.html",
        {
            "session_id": session_id,
            "conversation": conversation,
            "goes": goes,
        },
    )
