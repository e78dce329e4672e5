"""The data-rights rules, pure: the state machine, the statutory clocks, receipts, the
audit trail's shape, fingerprints and one-time codes (the residue matcher is the
content-store registry's, `memory.forgetting.stores`).

No ORM and no settings: secrets, clocks and time zones are passed in, so everything
here is tested without a database.
"""

import calendar
import hashlib
import hmac
import itertools
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from types import MappingProxyType

from datarights.enums import FINISHED_STATUSES, RequestStatus, TrailEvent

S = RequestStatus

# --- The state machine -----------------------------------------------------------------

# The seed's lifecycle: submitted → verified → in-progress → completed | failed |
# cancelled | expired | appealed. Iris fills in the edges the seed leaves implicit: a
# request can be withdrawn before work finishes, an outcome can be appealed, and an
# appeal (or a failure) goes back to work or is decided by an operator.
TRANSITIONS: Mapping[str, frozenset[str]] = MappingProxyType(
    {
        S.SUBMITTED: frozenset({S.VERIFIED, S.CANCELLED, S.EXPIRED}),
        S.VERIFIED: frozenset({S.IN_PROGRESS, S.CANCELLED}),
        S.IN_PROGRESS: frozenset({S.COMPLETED, S.FAILED, S.CANCELLED}),
        S.COMPLETED: frozenset({S.APPEALED}),
        S.FAILED: frozenset({S.APPEALED, S.IN_PROGRESS}),
        S.CANCELLED: frozenset(),
        S.EXPIRED: frozenset(),
        S.APPEALED: frozenset({S.IN_PROGRESS, S.COMPLETED, S.FAILED}),
    }
)

# Who may ask for which target status (the table above still has the last word).
MEMBER_TARGETS: frozenset[str] = frozenset({S.VERIFIED, S.CANCELLED, S.APPEALED})
OPERATOR_TARGETS: frozenset[str] = frozenset(
    {S.VERIFIED, S.IN_PROGRESS, S.COMPLETED, S.FAILED, S.CANCELLED}
)


def is_transition_allowed(current: str, target: str) -> bool:
    return target in TRANSITIONS.get(current, frozenset())


class TransitionRefused(ValueError):
    """An illegal transition, with a stable code for the API's 409."""

    def __init__(self, code: str, message: str) -> None:
        self.code = code
        self.message = message
        super().__init__(message)


def check_transition(
    *,
    current: str,
    target: str,
    kind: str,
    verified: bool,
    has_fingerprint: bool,
) -> None:
    """Raise TransitionRefused unless `current → target` may happen to this request.

    Beyond the table: nothing reaches a verified status unverified, and a delete or an
    export completes only with the fingerprint that binds its artifact.
    """
    if not is_transition_allowed(current, target):
        raise TransitionRefused(
            "illegal-transition", f"A {current} request cannot become {target}."
        )
    if target not in (S.SUBMITTED, S.CANCELLED, S.EXPIRED, S.VERIFIED) and not verified:
        raise TransitionRefused("not-verified", "The requester's identity is not verified.")
    if target == S.COMPLETED and kind in ("delete", "export") and not has_fingerprint:
        raise TransitionRefused(
            "fingerprint-missing", "A completed delete or export carries a result fingerprint."
        )


# --- Deadlines ---------------------------------------------------------------------------

VERIFICATION_WINDOW = timedelta(days=7)  # the seed's IRIS_DATA_RIGHTS_DEFAULT_VERIFICATION_MS
STATUTORY_DAYS = 30  # the seed's IRIS_DATA_RIGHTS_DEFAULT_DEADLINE_MS
MAX_EXTENSION_MONTHS = 2  # GDPR Art. 12(3): "by two further months where necessary"
DOWNLOAD_WINDOW = timedelta(days=7)  # how long a finished export can be downloaded


def verify_by(received_at: datetime) -> datetime:
    return received_at + VERIFICATION_WINDOW


def add_calendar_months(moment: datetime, months: int, tz: tzinfo) -> datetime:
    """The same local date and wall-clock time `months` later, or that month's last
    day when it is shorter (Jan 31 + 1 → Feb 28, or 29 in a leap year)."""
    local = moment.astimezone(tz)
    index = local.month - 1 + months
    year, month = local.year + index // 12, index % 12 + 1
    day = min(local.day, calendar.monthrange(year, month)[1])
    return local.replace(year=year, month=month, day=day, fold=0).astimezone(UTC)


def add_calendar_days(moment: datetime, days: int, tz: tzinfo) -> datetime:
    """`days` later on the calendar at the same wall-clock time: across a DST change the
    absolute length differs from days x 24 h by the shift, as legal periods do."""
    local = moment.astimezone(tz)
    return (local + timedelta(days=days)).replace(fold=0).astimezone(UTC)


def statutory_deadline(start: datetime, tz: tzinfo) -> datetime:
    """The earlier of 30 days (the seed) and one calendar month (GDPR Art. 12(3))."""
    return min(add_calendar_days(start, STATUTORY_DAYS, tz), add_calendar_months(start, 1, tz))


def deadline_for(*, received_at: datetime, verified_at: datetime | None, tz: tzinfo) -> datetime:
    """Counted from the later of receipt and verification (receipt until verified)."""
    start = max(received_at, verified_at) if verified_at else received_at
    return statutory_deadline(start, tz)


def latest_extension(deadline_at: datetime, tz: tzinfo) -> datetime:
    return add_calendar_months(deadline_at, MAX_EXTENSION_MONTHS, tz)


@dataclass(frozen=True, slots=True)
class ExtensionDecision:
    allowed: bool
    code: str = ""
    message: str = ""


def check_extension(
    *,
    status: str,
    deadline_at: datetime,
    already_extended: bool,
    new_deadline: datetime,
    reason: str,
    now: datetime,
    tz: tzinfo,
) -> ExtensionDecision:
    """One extension, of at most two further months, with a reason, decided (and the
    member told) before the first deadline passes."""
    if status not in (S.VERIFIED, S.IN_PROGRESS, S.APPEALED):
        return ExtensionDecision(False, "not-extendable", "Only open, verified work is extended.")
    if already_extended:
        return ExtensionDecision(False, "already-extended", "A deadline is extended only once.")
    if now >= deadline_at:
        return ExtensionDecision(
            False, "extension-too-late", "An extension is decided within the first month."
        )
    if not reason.strip():
        return ExtensionDecision(False, "reason-required", "An extension records its reason.")
    if new_deadline <= deadline_at:
        return ExtensionDecision(False, "extension-not-later", "The new deadline must be later.")
    if new_deadline > latest_extension(deadline_at, tz):
        return ExtensionDecision(
            False, "extension-too-long", "At most two further months may be added."
        )
    return ExtensionDecision(True)


# --- The operator console -------------------------------------------------------------------

DUE_SOON = timedelta(days=7)  # the queue's "due soon" window
REASON_MAX_LENGTH = 2000  # an operator's reason (extension, failure), shown to the member


class DeadlineState:
    """A request's deadline as the work queue shows it (also the CSS class suffix)."""

    OVERDUE = "overdue"  # open work past its due time
    SOON = "soon"  # open work due within DUE_SOON
    OK = "ok"  # open work with time left
    DONE = "done"  # finished: the clock stopped


def deadline_state(*, status: str, due_at: datetime, now: datetime) -> str:
    """Finished requests are done (a failed one may be retried, so it still counts)."""
    if status in FINISHED_STATUSES and status != S.FAILED:
        return DeadlineState.DONE
    if now > due_at:
        return DeadlineState.OVERDUE
    if due_at - now < DUE_SOON:
        return DeadlineState.SOON
    return DeadlineState.OK


def operator_reason_problem(reason: str | None) -> str | None:
    """None for a usable reason, else the stable error code."""
    text = (reason or "").strip()
    if not text:
        return "reason-required"
    if len(text) > REASON_MAX_LENGTH:
        return "reason-too-long"
    return None


def operator_moves(*, status: str, verified: bool) -> list[str]:
    """The moves an operator may offer now, in the state machine's order, besides
    `failed` (which is its own decision, with a reason). Mirrors the operator service:
    `completed` only decides an appeal; everything else is the table's word."""
    moves = []
    for target in (S.VERIFIED, S.IN_PROGRESS, S.COMPLETED, S.CANCELLED):
        if not is_transition_allowed(status, target):
            continue
        if target == S.COMPLETED and status != S.APPEALED:
            continue
        if target == S.IN_PROGRESS and not verified:
            continue
        moves.append(target)
    return moves


def appeal_offered(*, kind: str, status: str) -> bool:
    """Whether the member's page offers to contest this outcome. The table allows an
    appeal of any completed or failed request; it means something only where an
    operator's decision could change the outcome: a failure (its reason can be
    wrong) and a completed erasure (something may have been left). A completed
    export or access report is contested by asking again, which costs nothing."""
    if not is_transition_allowed(status, S.APPEALED):
        return False
    return status == S.FAILED or kind == "delete"


def can_fail(*, status: str, verified: bool) -> bool:
    return verified and is_transition_allowed(status, S.FAILED)


@dataclass(frozen=True, slots=True)
class Timing:
    is_past_deadline: bool
    ms_remaining_to_deadline: int


def receipt_timing(*, due_at: datetime, now: datetime, finished_at: datetime | None) -> Timing:
    """The seed's `isPastDeadline` / `msRemainingToDeadline`; a finished request is
    measured at the moment it finished, so its receipt stops ticking."""
    reference = finished_at or now
    remaining = due_at - reference
    return Timing(
        is_past_deadline=reference > due_at,
        ms_remaining_to_deadline=max(0, int(remaining.total_seconds() * 1000)),
    )


def is_finished(status: str) -> bool:
    return status in FINISHED_STATUSES


# Steps an operator's retry of a failed delete runs again (all idempotent). The text is
# collected again: a failed request keeps none, so the retry seals what is still stored.
RERUN_ON_RETRY = ("collect-text", "erase-entries", "erase-member-stores", "purge-consent-ledger")


def retry_progress(progress: dict) -> dict:
    """The progress a retried request resumes from: purges run again."""
    again = dict(progress)
    again["done"] = [s for s in progress.get("done", []) if s not in RERUN_ON_RETRY]
    again["cursors"] = {
        k: v for k, v in progress.get("cursors", {}).items() if k not in RERUN_ON_RETRY
    }
    again["attempts"] = 0
    again.pop("run", None)
    return again


# --- The audit trail -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TrailRow:
    event: str
    status: str
    at: datetime


def trail_problem(rows: Sequence[TrailRow]) -> str | None:
    """None for a valid trail: it starts with `submitted`, never goes back in time, and
    each status row names the status it moved to."""
    if not rows:
        return "empty"
    first = rows[0]
    if first.event != TrailEvent.SUBMITTED or first.status != S.SUBMITTED:
        return "does-not-start-with-submitted"
    for previous, row in itertools.pairwise(rows):
        if row.at < previous.at:
            return "not-chronological"
        if row.event in S.values and row.event != row.status:
            return "status-mismatch"
    return None


def trail_time(previous: datetime | None, now: datetime) -> datetime:
    """A new row's time: never before the one it follows (clocks on two hosts differ)."""
    return now if previous is None or now >= previous else previous


# --- Fingerprints ----------------------------------------------------------------------


def deleted_set_fingerprint(entry_ids: Iterable[str]) -> str:
    """SHA-256 of the sorted deleted-id set, one canonical id per line."""
    canonical = sorted({str(i).lower() for i in entry_ids})
    return hashlib.sha256("\n".join(canonical).encode("ascii")).hexdigest()


def report_fingerprint(canonical: bytes) -> str:
    return hashlib.sha256(canonical).hexdigest()


# --- One-time codes --------------------------------------------------------------------

CODE_DIGITS = 6
CODE_LIFETIME = timedelta(minutes=15)
CODE_MAX_ATTEMPTS = 5
# Codes per request: with five attempts each, guessing stays below 1 in 40 000.
CODE_MAX_ISSUED = 5


def generate_code() -> str:
    return f"{secrets.randbelow(10**CODE_DIGITS):0{CODE_DIGITS}d}"


def code_digest(*, secret: bytes, request_id: str, code: str) -> str:
    """Keyed hash of the code bound to its request: a leaked table reveals no code."""
    message = f"iris.datarights.code.v1:{request_id}:{code.strip()}".encode()
    return hmac.new(secret, message, hashlib.sha256).hexdigest()


def code_matches(*, secret: bytes, request_id: str, code: str, digest: str) -> bool:
    if not digest:
        return False
    return hmac.compare_digest(code_digest(secret=secret, request_id=request_id, code=code), digest)


# --- GDPR Art. 15 information shipped with every export and access report ----------------

ART15_PURPOSES = (
    "remembering what you tell the assistant so it can help you across conversations",
    "recalling relevant memories for the surface you are using, within your consents",
    "keeping an audit trail so you and regulators can check what happened to your data",
)
ART15_RECIPIENTS = (
    "the assistant surfaces you use (each only within the scopes it is allowed)",
    "operators only through a granted, audited inspection, and the data-rights workflow",
    "no third parties; no data is sold or shared for advertising",
)
ART15_RIGHTS = (
    "access (Art. 15)",
    "rectification (Art. 16): edit any memory on your memory page",
    "erasure (Art. 17): forget a memory, a category, everything, or file a delete request",
    "restriction (Art. 18): pause a memory or go off the record",
    "portability (Art. 20): this export, in machine-readable JSON",
    "objection (Art. 21) and withdrawal of consent at any time (Art. 7(3))",
    "complaint to a supervisory authority (Art. 77)",
)


def art15_information(*, categories: Sequence[str], retention: Mapping[str, dict]) -> dict:
    return {
        "controller": "Iris",
        "purposes": list(ART15_PURPOSES),
        "categories_of_data": list(categories),
        "retention": dict(retention),
        "recipients": list(ART15_RECIPIENTS),
        "rights": list(ART15_RIGHTS),
        "source": "you, and the assistant surfaces acting on your behalf",
        "automated_decision_making": "none with legal or similarly significant effect",
    }


def masked_email(address: str) -> str:
    """`ana.lopez@example.com` → `a•••@example.com`: enough for the member to recognise
    their mailbox, not enough to read it off a shoulder or a screenshot."""
    local, at, domain = address.partition("@")
    if not at:
        return "•••"
    return f"{local[:1]}•••@{domain}"
