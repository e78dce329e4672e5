"""The pure rules: state machine, statutory clocks (month ends, leap years, DST),
receipts, the trail's shape, fingerprints, one-time codes, the residue matcher and the
export encryption. No database."""

import hashlib
import io
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from datarights import crypto
from datarights.enums import RequestStatus as S
from datarights.policy import (
    TRANSITIONS,
    TrailRow,
    TransitionRefused,
    add_calendar_months,
    check_extension,
    check_transition,
    code_digest,
    code_matches,
    deadline_for,
    deleted_set_fingerprint,
    generate_code,
    is_transition_allowed,
    latest_extension,
    receipt_timing,
    statutory_deadline,
    trail_problem,
    trail_time,
    verify_by,
)
from memory.forgetting.stores import ResidueMatcher

UTC_ZONE = ZoneInfo("UTC")
BERLIN = ZoneInfo("Europe/Berlin")


def at(*args, tz=UTC) -> datetime:
    return datetime(*args, tzinfo=tz)


# --- the state machine -----------------------------------------------------------------

LEGAL = {
    (S.SUBMITTED, S.VERIFIED),
    (S.SUBMITTED, S.CANCELLED),
    (S.SUBMITTED, S.EXPIRED),
    (S.VERIFIED, S.IN_PROGRESS),
    (S.VERIFIED, S.CANCELLED),
    (S.IN_PROGRESS, S.COMPLETED),
    (S.IN_PROGRESS, S.FAILED),
    (S.IN_PROGRESS, S.CANCELLED),
    (S.COMPLETED, S.APPEALED),
    (S.FAILED, S.APPEALED),
    (S.FAILED, S.IN_PROGRESS),
    (S.APPEALED, S.IN_PROGRESS),
    (S.APPEALED, S.COMPLETED),
    (S.APPEALED, S.FAILED),
}


@pytest.mark.parametrize("current", S.values)
@pytest.mark.parametrize("target", S.values)
def test_the_transition_table_is_exactly_the_lifecycle(current, target):
    assert is_transition_allowed(current, target) == ((current, target) in LEGAL)


def test_terminal_states_go_nowhere():
    assert TRANSITIONS[S.CANCELLED] == frozenset()
    assert TRANSITIONS[S.EXPIRED] == frozenset()


def test_nothing_gets_past_submitted_unverified():
    with pytest.raises(TransitionRefused) as refused:
        check_transition(
            current=S.VERIFIED,
            target=S.IN_PROGRESS,
            kind="access",
            verified=False,
            has_fingerprint=False,
        )
    assert refused.value.code == "not-verified"


def test_a_delete_or_export_completes_only_with_a_fingerprint():
    for kind in ("delete", "export"):
        with pytest.raises(TransitionRefused) as refused:
            check_transition(
                current=S.IN_PROGRESS,
                target=S.COMPLETED,
                kind=kind,
                verified=True,
                has_fingerprint=False,
            )
        assert refused.value.code == "fingerprint-missing"
    check_transition(
        current=S.IN_PROGRESS,
        target=S.COMPLETED,
        kind="access",
        verified=True,
        has_fingerprint=False,
    )


def test_an_illegal_transition_names_both_states():
    with pytest.raises(TransitionRefused, match="A completed request cannot become verified"):
        check_transition(
            current=S.COMPLETED,
            target=S.VERIFIED,
            kind="export",
            verified=True,
            has_fingerprint=True,
        )


# --- deadlines ----------------------------------------------------------------------------


def test_verification_is_due_within_seven_days():
    assert verify_by(at(2027, 1, 1, 12)) == at(2027, 1, 8, 12)


@pytest.mark.parametrize(
    ("received", "deadline"),
    [
        # January 31st: the calendar month ends on February's last day, before 30 days.
        (at(2027, 1, 31, 10), at(2027, 2, 28, 10)),
        (at(2028, 1, 31, 10), at(2028, 2, 29, 10)),  # leap year
        (at(2027, 1, 30, 10), at(2027, 2, 28, 10)),
        (at(2027, 1, 29, 10), at(2027, 2, 28, 10)),  # 30 days → 28 Feb is earlier than 1 Mar
        (at(2027, 2, 1, 10), at(2027, 3, 1, 10)),  # February: a month is 28 days
        (at(2028, 2, 1, 10), at(2028, 3, 1, 10)),  # 29 in a leap year
        (at(2027, 3, 1, 10), at(2027, 3, 31, 10)),  # 31-day month: 30 days come first
        (at(2027, 4, 1, 10), at(2027, 5, 1, 10)),  # 30-day month: both agree
        (at(2027, 3, 31, 10), at(2027, 4, 30, 10)),
        (at(2027, 12, 31, 23, 59), at(2028, 1, 30, 23, 59)),  # across the year
    ],
)
def test_the_deadline_is_the_earlier_of_thirty_days_and_a_calendar_month(received, deadline):
    assert statutory_deadline(received, UTC_ZONE) == deadline
    assert deadline - received <= timedelta(days=30)


def test_the_deadline_counts_from_the_later_of_receipt_and_verification():
    received = at(2027, 1, 10, 9)
    assert deadline_for(received_at=received, verified_at=None, tz=UTC_ZONE) == at(2027, 2, 9, 9)
    verified = at(2027, 1, 31, 9)
    assert deadline_for(received_at=received, verified_at=verified, tz=UTC_ZONE) == at(
        2027, 2, 28, 9
    )
    # A verification timestamp earlier than receipt (clock skew) never shortens it.
    early = at(2027, 1, 9, 9)
    assert deadline_for(received_at=received, verified_at=early, tz=UTC_ZONE) == at(2027, 2, 9, 9)


def test_across_spring_dst_the_deadline_keeps_the_wall_clock_time():
    # 10 March 2027, 09:00 in Berlin (CET, UTC+1); summer time starts on 28 March.
    received = at(2027, 3, 10, 9, tz=BERLIN)
    deadline = statutory_deadline(received, BERLIN)
    assert deadline.astimezone(BERLIN).replace(tzinfo=None) == datetime(2027, 4, 9, 9)
    assert deadline == at(2027, 4, 9, 7)  # 09:00 CEST
    assert deadline - received == timedelta(days=30) - timedelta(hours=1)


def test_across_autumn_dst_the_deadline_keeps_the_wall_clock_time():
    received = at(2027, 10, 20, 9, tz=BERLIN)  # CEST; winter time from 31 October
    deadline = statutory_deadline(received, BERLIN)
    assert deadline == at(2027, 11, 19, 8)  # 09:00 CET
    assert deadline - received == timedelta(days=30, hours=1)


def test_a_deadline_falling_into_the_spring_gap_resolves_to_a_real_instant():
    # 28 Feb 2027 02:30 CET + one month = 28 Mar 02:30, which does not exist in Berlin.
    received = at(2027, 2, 28, 2, 30, tz=BERLIN)
    deadline = statutory_deadline(received, BERLIN)
    assert deadline == at(2027, 3, 28, 1, 30)  # 03:30 CEST, the first instant after the gap
    assert deadline.astimezone(BERLIN).hour == 3


def test_month_end_arithmetic_clamps_to_the_last_day():
    assert add_calendar_months(at(2027, 1, 31), 1, UTC_ZONE) == at(2027, 2, 28)
    assert add_calendar_months(at(2027, 8, 31), 1, UTC_ZONE) == at(2027, 9, 30)
    assert add_calendar_months(at(2027, 11, 30), 3, UTC_ZONE) == at(2028, 2, 29)
    assert add_calendar_months(at(2027, 12, 15), 2, UTC_ZONE) == at(2028, 2, 15)


def test_an_extension_adds_at_most_two_months():
    deadline = at(2027, 2, 28, 10)
    assert latest_extension(deadline, UTC_ZONE) == at(2027, 4, 28, 10)
    assert latest_extension(at(2027, 12, 31), UTC_ZONE) == at(2028, 2, 29)


def _extend(**overrides):
    args = {
        "status": S.IN_PROGRESS,
        "deadline_at": at(2027, 2, 28, 10),
        "already_extended": False,
        "new_deadline": at(2027, 4, 28, 10),
        "reason": "A large archive must be reviewed by counsel.",
        "now": at(2027, 2, 10),
        "tz": UTC_ZONE,
    }
    return check_extension(**{**args, **overrides})


def test_one_extension_with_a_reason_inside_the_first_month():
    assert _extend().allowed
    assert _extend(already_extended=True).code == "already-extended"
    assert _extend(reason="  ").code == "reason-required"
    assert _extend(now=at(2027, 2, 28, 10)).code == "extension-too-late"
    assert _extend(new_deadline=at(2027, 4, 28, 10, 1)).code == "extension-too-long"
    assert _extend(new_deadline=at(2027, 2, 27)).code == "extension-not-later"
    assert _extend(status=S.SUBMITTED).code == "not-extendable"


def test_the_receipt_counts_down_and_stops_when_finished():
    due = at(2027, 2, 28, 10)
    running = receipt_timing(due_at=due, now=at(2027, 2, 27, 10), finished_at=None)
    assert running.is_past_deadline is False
    assert running.ms_remaining_to_deadline == 86_400_000
    late = receipt_timing(due_at=due, now=at(2027, 3, 1), finished_at=None)
    assert late.is_past_deadline is True and late.ms_remaining_to_deadline == 0
    done = receipt_timing(due_at=due, now=at(2027, 6, 1), finished_at=at(2027, 2, 28, 9))
    assert done.is_past_deadline is False and done.ms_remaining_to_deadline == 3_600_000


# --- the trail ----------------------------------------------------------------------------


def test_a_trail_starts_with_submitted_and_never_goes_back():
    t0 = at(2027, 1, 1)
    good = [
        TrailRow("submitted", "submitted", t0),
        TrailRow("verified", "verified", t0),
        TrailRow("step-completed", "in-progress", t0 + timedelta(seconds=1)),
    ]
    assert trail_problem(good) is None
    assert trail_problem([]) == "empty"
    assert trail_problem(good[1:]) == "does-not-start-with-submitted"
    assert trail_problem([good[0], TrailRow("verified", "verified", t0 - timedelta(1))]) == (
        "not-chronological"
    )
    assert trail_problem([good[0], TrailRow("verified", "completed", t0)]) == "status-mismatch"


def test_a_new_trail_row_never_predates_the_last():
    last = at(2027, 1, 1, 12)
    assert trail_time(last, last - timedelta(seconds=5)) == last
    assert trail_time(last, last + timedelta(seconds=5)) == last + timedelta(seconds=5)
    assert trail_time(None, last) == last


# --- fingerprints and codes ---------------------------------------------------------------


def test_the_deleted_set_fingerprint_is_order_free_sha256():
    ids = ["b0000000-0000-0000-0000-000000000002", "A0000000-0000-0000-0000-000000000001"]
    expected = hashlib.sha256(
        b"a0000000-0000-0000-0000-000000000001\nb0000000-0000-0000-0000-000000000002"
    ).hexdigest()
    assert deleted_set_fingerprint(ids) == expected
    assert deleted_set_fingerprint(reversed(ids)) == expected


def test_codes_are_six_digits_and_stored_keyed():
    code = generate_code()
    assert len(code) == 6 and code.isdigit()
    digest = code_digest(secret=b"k" * 32, request_id="r1", code=code)
    assert code not in digest and len(digest) == 64
    assert code_matches(secret=b"k" * 32, request_id="r1", code=code, digest=digest)
    assert not code_matches(secret=b"k" * 32, request_id="r2", code=code, digest=digest)
    assert not code_matches(secret=b"x" * 32, request_id="r1", code=code, digest=digest)
    assert not code_matches(secret=b"k" * 32, request_id="r1", code=code, digest="")


# --- the residue matcher -----------------------------------------------------------------


def test_long_texts_match_inside_fields_short_ones_only_whole():
    matcher = ResidueMatcher(["I take my coffee black every morning", "4821"])
    assert matcher.text_in("Earlier she said: I TAKE my  coffee black every morning!")
    assert not matcher.text_in("I take my coffee with milk")
    assert matcher.text_in("  4821 ")
    assert not matcher.text_in("4821, see you")


def test_placeholders_and_common_short_texts_are_never_traces():
    # "(forgotten)" is what an erasure writes; "ok" or "Mum" could be anyone's words
    matcher = ResidueMatcher(["(forgotten)", "ok", "Mum"])
    assert matcher.empty
    assert not matcher.text_in("(forgotten)")
    assert not matcher.text_in("  OK ")
    assert not matcher.text_in("Mum")


def test_ids_match_anywhere():
    entry_id = "6f1c2d3e-0000-4000-8000-000000000001"
    matcher = ResidueMatcher([], ids=[entry_id])
    assert matcher.id_in(f'{{"entry":"{entry_id.upper()}"}}')
    assert not matcher.id_in("nothing here")
    assert ResidueMatcher([]).empty


# --- export encryption ---------------------------------------------------------------------


def _encrypt(plain: bytes, passphrase: str) -> bytes:
    out = io.BytesIO()
    salt = crypto.new_salt()
    writer = crypto.EncryptingWriter(out, key=crypto.derive_key(passphrase, salt), salt=salt)
    for start in range(0, len(plain), 1000):
        writer.write(plain[start : start + 1000])
    writer.close()
    return out.getvalue()


def test_encryption_round_trips_across_many_chunks():
    plain = bytes(range(256)) * 1000  # four chunks
    sealed = _encrypt(plain, "correct horse battery")
    assert plain[:64] not in sealed
    lines = sealed.splitlines(keepends=True)
    assert len(lines) == 1 + 4
    assert b"".join(crypto.decrypt_lines(lines, "correct horse battery")) == plain


def test_a_wrong_passphrase_or_a_tampered_file_is_refused():
    lines = _encrypt(b"x" * 200_000, "correct horse battery").splitlines(keepends=True)
    with pytest.raises(crypto.DecryptionFailed, match="wrong passphrase"):
        list(crypto.decrypt_lines(lines, "wrong horse battery!"))
    with pytest.raises(crypto.DecryptionFailed, match="out of order"):
        list(
            crypto.decrypt_lines(
                [lines[0], lines[2], lines[1], lines[3], lines[4]], "correct horse battery"
            )
        )
    with pytest.raises(crypto.DecryptionFailed, match="truncated"):
        list(crypto.decrypt_lines(lines[:-1], "correct horse battery"))


def test_work_state_is_sealed_under_the_server_key():
    token = crypto.seal({"texts": ["secret body"]}, server_secret="s1")
    assert "secret body" not in token
    assert crypto.unseal(token, server_secret="s1") == {"texts": ["secret body"]}
    assert crypto.unseal("", server_secret="s1") == {}
