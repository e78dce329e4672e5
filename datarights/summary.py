"""The export's human half: `summary.html`, a self-contained page a person can read
offline, and `README.txt`, which says what the zip holds.

The page is written as a stream (one memory at a time, like `data.json`), with its CSS
inline and no external resource at all: it is opened from a file, never served by Iris,
so Iris's CSP does not apply and nothing it refers to could be fetched. Everything in it
is escaped. Forgotten memories are absent (only their number is given); operator actions
show who (their role), what, when and why, never what they saw.
"""

from collections.abc import Callable, Iterable
from datetime import datetime

from django.utils.html import escape

from consent.policy import is_in_force
from consent.selectors import consent_states
from iris_site.audit.actions import AuditAction, current_name
from iris_site.audit.enums import ActorType
from iris_site.audit.events import iso
from iris_site.audit.selectors import audit_events_for_member
from memory.entities.selectors import entities_export
from memory.enums import ExpiryAction, Lifecycle, ScopeKind
from memory.labels import (
    SCOPE_ORDER,
    category_label,
    consent_label,
    consent_status_label,
    lifecycle_label,
    origin_label,
    scope_label,
)
from memory.policy.retention import retention_envelope_for_kind

# The operator events a summary lists, newest first (the access report's bound).
OPERATOR_ACTIONS_LIMIT = 1000

STYLE = """
body { font: 16px/1.5 system-ui, sans-serif; color: #1a1a1a; margin: 0 auto;
  max-width: 48rem; padding: 1rem; overflow-wrap: break-word; }
code { font-size: 0.8125rem; color: #555; overflow-wrap: anywhere; }
h1, h2, h3 { line-height: 1.25; }
section { margin-top: 2rem; }
ul.memories { list-style: none; padding: 0; }
ul.memories li { border: 1px solid #ccc; border-radius: 6px; padding: 0.5rem 0.75rem;
  margin: 0.5rem 0; }
.meta { color: #555; font-size: 0.875rem; margin: 0.25rem 0 0; }
table { border-collapse: collapse; width: 100%; }
th, td { border-bottom: 1px solid #ccc; padding: 0.25rem 0.5rem; text-align: left;
  vertical-align: top; }
.scroll { overflow-x: auto; }
"""


def _time(value: datetime | str | None) -> str:
    if value is None:
        return "—"
    text = value if isinstance(value, str) else iso(value)
    return text[:16].replace("T", " ") + " UTC"


def _e(value) -> str:
    return str(escape("" if value is None else str(value)))


def retention_sentence(kind: str) -> str:
    """A scope's retention rule in plain words."""
    envelope = retention_envelope_for_kind(kind)
    if envelope.raw_days is None:
        if envelope.expiry_action == ExpiryAction.DELETE:
            return "Kept as long as what it belongs to (for example a notebook), then erased."
        return "Kept until you forget it; Iris asks you from time to time whether to keep it."
    days = envelope.raw_days
    if envelope.expiry_action == ExpiryAction.SUMMARIZE:
        summary = (
            f" The summary is kept for {envelope.summary_days} days."
            if envelope.summary_days
            else ""
        )
        return f"Kept for {days} days, then only a short summary remains.{summary}"
    if envelope.expiry_action == ExpiryAction.REVIEW:
        return f"Kept for {days} days, then you are asked whether to keep it."
    return f"Kept for {days} days, then erased."


def _memories(
    write: Callable[[str], None],
    entries_of: Callable[[list[str]], Iterable[dict]],
    kinds: list[str],
) -> int:
    """Each active memory, grouped by place in the member page's order; returns how
    many forgotten ones were left out."""
    forgotten = 0
    order = [k for k in SCOPE_ORDER if k in kinds] + [k for k in kinds if k not in SCOPE_ORDER]
    shown_any = False
    for kind in order:
        opened = False
        for entry in entries_of([kind]):
            if entry.get("forgotten") or entry.get("lifecycle") == Lifecycle.TOMBSTONED:
                forgotten += 1
                continue
            if not opened:
                write(f'<h3>{_e(scope_label(kind))}</h3>\n<ul class="memories">\n')
                opened = shown_any = True
            subject = entry.get("subject")
            state = entry.get("lifecycle")
            meta = [
                str(category_label(entry.get("category", ""))),
                str(origin_label(entry.get("origin", ""))),
                f"remembered {_time(entry.get('created_at'))}",
            ]
            if state and state != Lifecycle.ACTIVE:
                meta.append(str(lifecycle_label(state)))
            if entry.get("expires_at"):
                meta.append(f"until {_time(entry['expires_at'])}")
            # A memory whose text cannot be opened is said to be unavailable, not shown
            # as empty (`export._entry` marks it).
            text = (
                "<em>unavailable: its stored text cannot be read (damaged, or its key is gone)</em>"
                if entry.get("unavailable") and entry.get("body") is None
                else _e(entry.get("body"))
            )
            if entry.get("unavailable") and "subject" in entry.get("unavailable_fields", ()):
                subject = "unavailable"
            write(
                "<li>"
                + (f"<strong>{_e(subject)}</strong>: " if subject else "")
                + text
                + f'<p class="meta">{_e(" · ".join(m for m in meta if m))}</p></li>\n'
            )
        if opened:
            write("</ul>\n")
    if not shown_any:
        write("<p>Iris remembers nothing about you in the places you asked for.</p>\n")
    return forgotten


def _consents(write: Callable[[str], None], member_id, now: datetime) -> None:
    states = consent_states(member_id=member_id)
    write('<section id="consents"><h2>Your consents</h2>\n')
    if not states:
        write("<p>You have not been asked for any consent yet.</p></section>\n")
        return
    write(
        '<div class="scroll"><table><caption>What you allowed, as it stands now</caption>'
        '<thead><tr><th scope="col">Consent</th><th scope="col">Now</th></tr></thead><tbody>\n'
    )
    for consent_type, state in sorted(states.items()):
        status = consent_status_label(state.status)
        if state.status == "granted" and not is_in_force(state, now):
            status = consent_status_label("expired")
        write(f"<tr><td>{_e(consent_label(consent_type))}</td><td>{_e(status)}</td></tr>\n")
    write("</tbody></table></div></section>\n")


# Inspection paths (`inspection.enums.InspectionState`, a sibling layer), in words.
WHY_WORDS = {
    "routine-review": "for a routine review",
    "dsar-fulfillment": "to fulfil your data-rights request",
    "incident-escalation": "to investigate a safety incident",
    # An operator's listing of your audit events (`iris_site.audit.listing`), by its cover.
    "inspection": "within a granted inspection",
    "data-rights-request": "to handle your data-rights request",
    "none": "special categories not shown",
    # Why a look ended as it did (`inspection.enums.ReasonCode`), in words.
    "cross-tenant": "because you are outside that operator's organisation",
    "scope-out-of-bounds": "because what they asked to see was not theirs to review",
    "no-legitimate-interest": "because no valid reason was given",
    "consent-not-current": "because you have not allowed your sensitive memories to be seen",
    "expired": "because no one decided in time",
    "declined": "because an operator said no",
    "grant-expired": "because the time allowed to look ran out",
}
# A reason without words of its own: said as such, never echoed from the event (a code
# is not a member's word, and a payload value is not known to be a code).
WHY_UNWORDED = "for a reason Iris recorded"
STATE_WORDS = {
    "requested": "asked to look at your memory",
    "routine-review": "chose a routine review",
    "dsar-fulfillment": "chose to fulfil your data-rights request",
    "incident-escalation": "escalated a safety incident",
    "granted": "was allowed to look",
    "denied": "was refused",
    "closed": "finished looking",
}
# What each event a member's report can show says was done, in a member's words (issue 47,
# item 3): every operator step on the member's memory (inspections, working and long-term
# memory, the audit record, data-rights work) has its own words; anything else is worded by
# the part of Iris it belongs to (`APP_WORDS`). A code is never shown.
ACTION_WORDS = {
    AuditAction.INSPECTION_REQUEST_TRANSITIONED: "took a step in a recorded look at your memory",
    AuditAction.INSPECTION_SNAPSHOT_PINNED: "fixed which memories could be seen",
    AuditAction.INSPECTION_SNAPSHOT_READ: "looked at the memories allowed",
    AuditAction.INSPECTION_SNAPSHOT_READ_REFUSED: "tried to look and was refused",
    AuditAction.INSPECTION_REQUEST_TRANSITION_REJECTED: "tried a step that was refused",
    AuditAction.INSPECTION_COPILOT_NOTE_ADDED: "added a support note",
    AuditAction.INSPECTION_COPILOT_NOTE_REFUSED: "tried to add a note and was refused",
    AuditAction.INSPECTION_NOTICE_QUEUED: "prepared a message telling you someone looked",
    AuditAction.INSPECTION_NOTICE_DELIVERED: "sent you a message telling you someone looked",
    AuditAction.HIERARCHY_LTM_READ: "looked at your long-term memories",
    AuditAction.HIERARCHY_LTM_HISTORY_READ: "looked at the history of a long-term memory",
    AuditAction.HIERARCHY_STM_ADMIN_READ: "looked at your recent conversation notes",
    AuditAction.HIERARCHY_STM_ADMIN_RESCOPED: "moved a recent conversation note to another place",
    AuditAction.HIERARCHY_STM_CONSOLIDATE_REQUESTED: (
        "asked for a recent conversation note to be kept as a memory"
    ),
    AuditAction.HIERARCHY_LTM_DEMOTE_REQUESTED: (
        "asked for a long-term memory to go back to a conversation"
    ),
    AuditAction.IRIS_SITE_AUDIT_EVENTS_LISTED: "listed the record of what happened to your memory",
    AuditAction.DATARIGHTS_REQUEST_EXTENDED: "gave your data-rights request more time",
    AuditAction.DATARIGHTS_REQUEST_HELD: "paused your data-rights request",
    AuditAction.DATARIGHTS_REQUEST_REACTIVATED: "resumed your data-rights request",
    AuditAction.DATARIGHTS_REQUEST_FAILED: "closed your data-rights request as not done",
    AuditAction.DATARIGHTS_REQUEST_COMPLETED: "finished your data-rights request",
    AuditAction.DATARIGHTS_REQUEST_IN_PROGRESS: "started work on your data-rights request",
    AuditAction.DATARIGHTS_REQUEST_STEP_COMPLETED: "finished a step of your data-rights request",
    AuditAction.DATARIGHTS_REQUEST_ARTIFACT_REMOVED: "removed a finished export file",
    AuditAction.DATARIGHTS_REQUEST_CANCELLED: "cancelled your data-rights request",
    AuditAction.DATARIGHTS_FORGET_CHECK_FAILED: "checked an erasure and found traces to remove",
}
# The part of Iris an event belongs to, for an event without words of its own.
APP_WORDS = {
    "iris_site": "acted on your account",
    "consent": "recorded a change to your consents",
    "memory": "acted on your memories",
    "continuity": "acted on your conversations",
    "datarights": "worked on your data-rights request",
    "inspection": "took a step in a recorded look at your memory",
    "hierarchy": "acted on your working memory",
    "console": "acted on your account from the operator console",
    "interfaces": "acted on how assistants reach your memory",
    "webhooks": "acted on the notices Iris sends about your memory",
}
ROLE_WORDS = {
    "support": "an Iris operator (support)",
    "admin": "an Iris operator (administrator)",
    "t&s": "an Iris operator (trust and safety)",
    "legal": "an Iris operator (legal)",
}


def action_words(action: str, payload: dict) -> str:
    """An audit action in plain words, never its code. A row stored under an action's
    former name reads as the action it became."""
    action = current_name(action)
    if action == AuditAction.INSPECTION_REQUEST_TRANSITIONED and payload.get("to_state"):
        return STATE_WORDS.get(payload["to_state"], ACTION_WORDS[action])
    if action in ACTION_WORDS:
        return ACTION_WORDS[action]
    return APP_WORDS.get(action.split(".", 1)[0], "acted on your memory")


def who_words(role: str | None) -> str:
    """Who acted, in words: an operator by their role (never their id)."""
    return ROLE_WORDS.get(role or "", "an Iris operator")


def why_words(why: str) -> str:
    """Why, from the event's reason category (a code, never free text), in words."""
    if not why:
        return ""
    return WHY_WORDS.get(why, WHY_UNWORDED)


def event_why(payload: dict) -> str:
    """The reason category an event states (an inspection's path, a reason code, a cover)."""
    return str(payload.get("path") or payload.get("reason_code") or payload.get("cover") or "")


def report_looks(events: Iterable[dict]) -> list[dict]:
    """A stored access report's operator events as the member's page words them (who, what
    kind of look, when, why), worded now: a report stored before these words reads the
    same way, and no event code reaches the page."""
    looks = []
    for event in events:
        payload = event.get("payload") or {}
        payload = payload if isinstance(payload, dict) else {}
        looks.append(
            {
                "occurred_at": event.get("occurred_at") or "",
                "who": who_words(event.get("actor_role")),
                "what": action_words(event.get("action") or "", payload),
                "why": why_words(event_why(payload)),
            }
        )
    return looks


def operator_actions(member_id) -> list[dict]:
    """The operator events on this member's memory, newest first: role, action, when,
    why (the inspection path or reason code); never an operator id or memory content."""
    events = (
        audit_events_for_member(member_id=member_id)
        .filter(actor_type=ActorType.OPERATOR)
        .order_by("-sequence")[:OPERATOR_ACTIONS_LIMIT]
    )
    out = []
    for e in events:
        payload = e.payload or {}
        why = payload.get("path") or payload.get("reason_code") or payload.get("cover") or ""
        out.append(
            {
                "action": e.action,
                "what": action_words(e.action, payload),
                "actor_role": e.actor_role or "operator",
                "occurred_at": iso(e.occurred_at),
                "why": why,
                "who": who_words(e.actor_role),
                "why_words": why_words(why),
            }
        )
    return out


def _who_looked(write: Callable[[str], None], member_id) -> None:
    actions = operator_actions(member_id)
    write('<section id="who-looked"><h2>Who looked, and why</h2>\n')
    write(
        "<p>The assistant surfaces you use recall your memories to answer you. Iris staff "
        "(operators) can see them only through a granted, recorded inspection or while "
        "handling one of your data requests. Every such step is listed here.</p>\n"
    )
    if not actions:
        write("<p>No operator has acted on your memory.</p></section>\n")
        return
    write(
        '<div class="scroll"><table><caption>What operators did, newest first</caption>'
        '<thead><tr><th scope="col">When</th><th scope="col">Who</th>'
        '<th scope="col">What they did</th><th scope="col">Why</th></tr></thead><tbody>\n'
    )
    for action in actions:
        write(
            f"<tr><td>{_e(_time(action['occurred_at']))}</td>"
            f"<td>{_e(action['who'])}</td>"
            f"<td>{_e(action['what'])}</td>"
            f"<td>{_e(action['why_words'] or '—')}</td></tr>\n"
        )
    write("</tbody></table></div></section>\n")


def _people(write: Callable[[str], None], member_id, kinds: list[str]) -> None:
    graph = entities_export(member_id=member_id, scope_kinds=kinds)
    names = {e["id"]: e["name"] for e in graph["entities"]}
    for e in graph["entities"]:
        if e["kind"] == "self":
            names[e["id"]] = "you"
    write('<section id="people"><h2>Who and what your memories are about</h2>\n')
    shown = [e for e in graph["entities"] if e["kind"] != "self"]
    if not shown:
        write("<p>No people or topics.</p></section>\n")
        return
    write("<ul>\n")
    for e in shown:
        kind = "a person" if e["kind"] == "person" else "a topic"
        name = e["name"] or ("someone you mentioned" if e["kind"] == "person" else "a topic")
        write(
            f"<li><strong>{_e(name)}</strong> ({kind}, since {_e(_time(e['created_at']))})</li>\n"
        )
    write("</ul>\n")
    if graph["relationships"]:
        write(
            '<div class="scroll"><table><caption>How they relate, and when it held</caption>'
            '<thead><tr><th scope="col">Who</th><th scope="col">Relationship</th>'
            '<th scope="col">With</th><th scope="col">From</th><th scope="col">Until</th>'
            "</tr></thead><tbody>\n"
        )
        for r in graph["relationships"]:
            write(
                f"<tr><td>{_e(names.get(r['from_entity_id']) or '—')}</td>"
                f"<td>{_e(r['type'] or r['note'] or 'knows')}</td>"
                f"<td>{_e(names.get(r['to_entity_id']) or '—')}</td>"
                f"<td>{_e(_time(r['valid_from']))}</td>"
                f"<td>{_e(_time(r['valid_to']) if r['valid_to'] else 'still true')}</td></tr>\n"
            )
        write("</tbody></table></div>\n")
    write("</section>\n")


def _retention(write: Callable[[str], None]) -> None:
    write('<section id="retention"><h2>How long Iris keeps things</h2>\n<ul>\n')
    order = [k for k in SCOPE_ORDER if k in ScopeKind.values]
    for kind in order + [k for k in ScopeKind.values if k not in order]:
        label, rule = _e(scope_label(kind)), _e(retention_sentence(kind))
        write(f"<li><strong>{label}</strong>: {rule}</li>\n")
    write(
        "</ul>\n<p>You can forget any memory at any time on your memory page, or ask "
        "Iris to erase everything.</p></section>\n"
    )


def write_summary(
    write: Callable[[bytes], None],
    *,
    member_id,
    kinds: list[str],
    entries_of: Callable[[list[str]], Iterable[dict]],
    generated_at: datetime,
) -> None:
    """Stream `summary.html` into `write`."""

    def out(text: str) -> None:
        write(text.encode())

    out(
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        "<title>Your data from Iris</title>\n"
        f"<style>{STYLE}</style>\n</head>\n<body>\n<main>\n"
        "<h1>Your data from Iris</h1>\n"
        f"<p>Made on {_e(_time(generated_at))}. This page is for you to read; "
        "<code>data.json</code> in the same zip holds the same data for other programs.</p>\n"
        '<section id="memories"><h2>What Iris remembers</h2>\n'
    )
    forgotten = _memories(out, entries_of, kinds)
    if forgotten:
        out(
            f"<p>{forgotten} forgotten memor{'y is' if forgotten == 1 else 'ies are'} not "
            "shown: Iris keeps only that they existed and when they were forgotten.</p>\n"
        )
    out("</section>\n")
    _people(out, member_id, kinds)
    _consents(out, member_id, generated_at)
    _who_looked(out, member_id)
    _retention(out)
    out("</main>\n</body>\n</html>\n")


def readme_text(*, request_id, generated_at: datetime) -> str:
    return (
        "Your data from Iris\n"
        "===================\n\n"
        f"Export {request_id}, made on {_time(generated_at)}.\n\n"
        "summary.html  Open it in any web browser (double-click). It works offline:\n"
        "              what Iris remembers, your consents, who looked and why, and\n"
        "              how long Iris keeps things.\n"
        "data.json     The same data, and each memory's full history, as JSON for\n"
        "              other programs (format iris-dsar-export).\n"
        "README.txt    This file.\n\n"
        'The SHA-256 shown with this export on your "Your data" page is the\n'
        "fingerprint of this zip file: check it with `sha256sum` (Linux),\n"
        "`shasum -a 256` (macOS) or `certutil -hashfile <file> SHA256` (Windows).\n"
        "If you chose a passphrase, the file you downloaded is this zip encrypted;\n"
        "decrypt it first and the fingerprint is of the decrypted zip.\n"
        "Forgotten memories are not in this export, only that they existed.\n"
    )
