"""People and topics (/profile/memory/people/): who and what Iris's memories are about,
what it holds about each, and "forget everything about them", over the same selectors and
services as the member API (`memory.entities.services`)."""

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_http_methods

from iris_site.api.gated import MEMBER_OWN, content_view
from iris_site.audit.events import Actor
from iris_site.errors import DomainError, NotFound
from iris_site.permissions import member_required
from iris_site.stepup import step_up_page
from memory.access.gate import ContentKind
from memory.entities.policy import ABOUT
from memory.entities.selectors import entity_detail, member_entities
from memory.entities.services import entity_retire
from memory.enums import EntityKind


def _detail_or_404(request, entity_id):
    try:
        detail = entity_detail(request.user, entity_id)
    except NotFound:
        raise Http404 from None
    if detail.entity.kind == EntityKind.SELF:  # the member is forgotten by a full clear
        raise Http404
    return detail


def _name(summary) -> str:
    if summary.kind == EntityKind.SELF:
        return _("you")
    if summary.label:
        return summary.label
    return _("someone you mentioned") if summary.kind == EntityKind.PERSON else _("a topic")


def _relationship_text(rel, names: dict) -> str:
    """ "Your sister", "Sam, about the allotment": the relationship in the member's words."""
    here, there = names.get(rel.from_entity_id), names.get(rel.to_entity_id)
    if rel.type == ABOUT:
        return _("%(who)s, about %(what)s") % {"who": here or _("someone"), "what": there or "…"}
    kind = rel.type or _("someone you know")
    who = there or _("someone")
    text = _("Your %(kind)s, %(who)s") % {"kind": kind, "who": who}
    said = " ".join(rel.note.split()).casefold().removeprefix("my ")
    return f"{text} ({rel.note})" if rel.note and said != rel.type.casefold() else text


_FORMATS = {"year": "Y", "month": "F Y", "day": "j F Y", "": "j F Y"}


def _on(when, precision: str) -> str:
    """A time as precisely as the member said it: "2019", "March 2026", "3 June 2026"."""
    return date_format(when, _FORMATS.get(precision, "j F Y"))


def _period_text(period: dict) -> dict:
    """When it was true, in the member's terms ("from 2019 until March 2026"), and when
    Iris learned it where that differs (told late, or an end told later)."""
    start, end = period["valid_from"], period["valid_to"]
    if start is None:
        when = _("until %(end)s (you did not say since when)") % {
            "end": _on(end, period["valid_to_precision"])
        }
    elif end is None:
        when = _("from %(start)s, still true") % {
            "start": _on(start, period["valid_from_precision"])
        }
    else:
        when = _("from %(start)s until %(end)s") % {
            "start": _on(start, period["valid_from_precision"]),
            "end": _on(end, period["valid_to_precision"]),
        }
    learned = []
    if period["valid_from_precision"] or start is None:
        learned.append(_("Iris learned this %(on)s") % {"on": _on(period["learned_at"], "")})
    if end is not None and period["valid_to_precision"] and period["end_learned_at"]:
        learned.append(
            _("Iris learned it ended %(on)s") % {"on": _on(period["end_learned_at"], "")}
        )
    return {**period, "when": when, "learned": " · ".join(learned)}


def _held(relationships, names: dict) -> list[dict]:
    """One line per relationship as the member would say it, with the periods it was
    true (`entity_detail` gives one per period). Periods Iris recorded before it kept
    valid time apart (no time said, overlapping) read as one."""
    lines: dict[str, list[dict]] = {}
    for rel in relationships:
        periods = lines.setdefault(_relationship_text(rel, names), [])
        last = periods[-1] if periods else None
        said = rel.valid_from_precision or rel.valid_to_precision
        if (
            last
            and not said
            and not (last["valid_from_precision"] or last["valid_to_precision"])
            and rel.valid_from is not None
            and (last["valid_to"] is None or rel.valid_from <= last["valid_to"])
        ):
            if last["valid_to"] is not None:
                last["valid_to"] = (
                    None if rel.valid_to is None else max(last["valid_to"], rel.valid_to)
                )
                last["end_learned_at"] = rel.end_learned_at
            continue
        periods.append(
            {
                "valid_from": rel.valid_from,
                "valid_from_precision": rel.valid_from_precision,
                "valid_to": rel.valid_to,
                "valid_to_precision": rel.valid_to_precision,
                "learned_at": rel.learned_at,
                "end_learned_at": rel.end_learned_at,
            }
        )
    return [
        {"text": text, "periods": [_period_text(p) for p in periods]}
        for text, periods in lines.items()
    ]


def _context(request, detail) -> dict:
    names = {e.id: _name(e) for e in member_entities(request.user)}
    names[detail.entity.id] = _name(detail.entity)
    return {
        "detail": detail,
        "name": _name(detail.entity),
        "relationships": _held(detail.relationships, names),
    }


@content_view(reads=[ContentKind.ENTRY], through=MEMBER_OWN)
@require_GET
@member_required
def people_index(request):
    entities = [e for e in member_entities(request.user) if e.kind != EntityKind.SELF]
    return render(
        request,
        "memory/people.html",
        {
            "people": [e for e in entities if e.kind == EntityKind.PERSON],
            "topics": [e for e in entities if e.kind == EntityKind.SUBJECT],
        },
    )


@content_view(reads=[ContentKind.ENTRY], through=MEMBER_OWN)
@require_GET
@member_required
def person_detail(request, entity_id):
    detail = _detail_or_404(request, entity_id)
    return render(request, "memory/person.html", _context(request, detail))


@content_view(reads=[ContentKind.ENTRY], through=MEMBER_OWN)
@require_http_methods(["GET", "POST"])
@member_required
def person_forget(request, entity_id):
    detail = _detail_or_404(request, entity_id)
    confirm = step_up_page(request, action=_("forget everything about them"))
    if confirm is not None:
        return confirm
    if request.method == "POST":
        try:
            result = entity_retire(
                member=request.user, entity_id=detail.entity.id, actor=Actor.of(request.user)
            )
        except DomainError as exc:
            messages.error(request, exc.message)
            return redirect("memory:person", entity_id=detail.entity.id)
        what = _("this person") if detail.entity.kind == EntityKind.PERSON else _("this topic")
        messages.success(
            request,
            ngettext(
                "Forgot everything about %(what)s: %(n)d memory erased, with its history, "
                "and every relationship. Nothing an assistant says brings it back; only you "
                "can tell Iris again.",
                "Forgot everything about %(what)s: %(n)d memories erased, with their "
                "history, and every relationship. Nothing an assistant says brings it back; "
                "only you can tell Iris again.",
                result.erased_count,
            )
            % {"what": what, "n": result.erased_count},
        )
        return redirect("memory:people")
    return render(request, "memory/person_forget.html", _context(request, detail))
