"""When a relationship was true, read from the member's words (`memory.entities.when`) and
kept beside when Iris learned it (`memory.entities.policy` periods). Pure: no database.

The rules: a phrase is read only when it is plain; it never names a time after it was
said; a month without a year is the latest such month by then; anything unclear stays
open (None), never guessed."""

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from memory.entities import policy
from memory.entities.when import DAY, MONTH, NOTHING, YEAR, Point, Stated, stated_times

JUNE = datetime(2026, 6, 3, 12, 0, tzinfo=UTC)
MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
told_times = st.datetimes(
    min_value=datetime(2001, 1, 1), max_value=datetime(2090, 12, 31), timezones=st.just(UTC)
)


def at(year, month=1, day=1):
    return datetime(year, month, day, tzinfo=UTC)


def test_the_phrases_a_member_says():
    assert stated_times("my partner since 2019", told=JUNE) == Stated(start=Point(at(2019), YEAR))
    assert stated_times("from March", told=JUNE) == Stated(start=Point(at(2026, 3), MONTH))
    assert stated_times("until March", told=JUNE) == Stated(end=Point(at(2026, 3), MONTH))
    assert stated_times("my ex, we broke up in March", told=JUNE) == Stated(
        end=Point(at(2026, 3), MONTH)
    )
    assert stated_times("friends since last year", told=JUNE).start == Point(at(2025), YEAR)
    assert stated_times("we met two years ago", told=JUNE).start == Point(at(2024), YEAR)
    assert stated_times("since 3 June 2024", told=JUNE).start == Point(at(2024, 6, 3), DAY)
    assert stated_times("married 2019-05-04", told=JUNE).start == Point(at(2019, 5, 4), DAY)
    assert stated_times("since March 2019 until May 2021", told=JUNE) == Stated(
        start=Point(at(2019, 3), MONTH), end=Point(at(2021, 5), MONTH)
    )
    # a month later in the year than it was said is last year's, for words of the past
    assert stated_times("since December", told=JUNE).start == Point(at(2025, 12), MONTH)


def test_what_is_unclear_stays_open():
    for text in [
        "my sister",
        "in March",  # began or ended in March? not said
        "last year",  # what happened then? not said
        "until December",  # told in June: last December or the coming one
        "from September",
        "since 2030",  # after it was said
        "since 31 February 2020",  # no such day
        "since 2019, or since 2020",  # two starts
        "since 2021 until 2019",  # an end before the start
    ]:
        assert stated_times(text, told=JUNE) == NOTHING, text


@given(told=told_times, text=st.text(alphabet=st.sampled_from("abcxyz ,.'-"), max_size=60))
def test_words_without_a_time_never_give_one(told, text):
    assert stated_times(text, told=told) == NOTHING


@given(
    told=told_times,
    word=st.sampled_from(["since", "from", "until", "broke up in", "married in", "left in"]),
    month=st.sampled_from(MONTHS),
    year=st.one_of(st.none(), st.integers(1990, 2095)),
)
def test_a_time_read_is_never_after_it_was_said_and_is_the_latest_such_month(
    told, word, month, year
):
    text = f"{word} {month}" + (f" {year}" if year else "")
    stated = stated_times(text, told=told)
    point = stated.start or stated.end
    assert not (stated.start and stated.end)
    if point is None:
        # only a time after it was said, or "until"/"from" a month still to come, is unread
        number = MONTHS.index(month) + 1
        assert (year and at(year, number) > told) or (
            not year and word in ("until", "from") and number > told.month
        )
        return
    assert point.precision == MONTH and point.at <= told
    assert point.at.strftime("%B") == month
    if year is None:  # the latest such month by then: within the year before
        assert told - point.at < timedelta(days=366)
    else:
        assert point.at.year == year
    assert (stated.start is not None) == (word in ("since", "from", "married in"))


@given(told=told_times, n=st.integers(1, 10), year=st.integers(1950, 2100))
def test_years_ago_and_since_a_year(told, n, year):
    assert stated_times(f"met {n} years ago", told=told).start == Point(at(told.year - n), YEAR)
    since = stated_times(f"since {year}", told=told).start
    assert since == (Point(at(year), YEAR) if year <= told.year else None)


# --- Periods: valid time beside learned time -------------------------------------------------


def test_a_relationship_told_late_is_true_from_when_the_member_said():
    period = policy.period_told(stated_times("since 2019", told=JUNE), now=JUNE)
    assert (period.valid_from, period.valid_from_precision) == (at(2019), YEAR)
    assert (period.valid_to, period.learned_at, period.end_learned_at) == (None, JUNE, None)
    assert policy.valid_at(valid_from=period.valid_from, valid_to=None, at=at(2020))
    # said nothing of when: true from when Iris heard it, with no precision to claim
    plain = policy.period_told(NOTHING, now=JUNE)
    assert (plain.valid_from, plain.valid_from_precision) == (JUNE, "")


def test_an_explicit_end_closes_the_period_at_the_end_the_member_said():
    start = policy.period_told(NOTHING, now=at(2026, 1, 10))
    ended = policy.period_restated(start, stated_times("we broke up in March", told=JUNE), now=JUNE)
    assert (ended.valid_from, ended.valid_to, ended.valid_to_precision) == (
        at(2026, 1, 10),
        at(2026, 3),
        MONTH,
    )
    assert (ended.learned_at, ended.end_learned_at) == (at(2026, 1, 10), JUNE)
    # told first, only its end: when it began is unknown, not the day Iris heard it
    only_end = policy.period_told(stated_times("until March", told=JUNE), now=JUNE)
    assert only_end.valid_from is None and only_end.valid_to == at(2026, 3)
    assert not policy.valid_at(valid_from=None, valid_to=at(2026, 3), at=at(2026, 2))


def test_a_restatement_joins_an_open_period_or_one_its_own_write_ended():
    period = policy.period_told(NOTHING, now=at(2026, 1, 10))
    assert policy.period_joins(period, now=JUNE)
    superseded = policy.period_superseded(period, now=JUNE)
    assert (superseded.valid_to, superseded.end_learned_at) == (JUNE, JUNE)
    assert policy.period_joins(superseded, now=JUNE)  # the same write restates it
    assert not policy.period_joins(superseded, now=JUNE + timedelta(days=1))
    again = policy.period_restated(superseded, NOTHING, now=JUNE)
    assert (again.valid_from, again.valid_to, again.learned_at) == (
        at(2026, 1, 10),
        None,
        at(2026, 1, 10),
    )
    # a period that ended as the member said is not reopened by another statement
    ended = policy.period_told(stated_times("until March", told=JUNE), now=JUNE)
    assert not policy.period_joins(ended, now=JUNE)
    # and a member's end stands when its statement is superseded
    assert policy.period_superseded(ended, now=JUNE + timedelta(days=9)) == ended


statements = st.builds(
    lambda word, year: f"{word} {year}",
    st.sampled_from(["since", "until", "married in", "broke up in", "about"]),
    st.integers(2000, 2030),
)


@given(told=told_times, first=statements, second=statements, gap=st.integers(0, 400))
def test_a_period_never_ends_before_it_began_and_keeps_when_iris_first_heard(
    told, first, second, gap
):
    later = told + timedelta(days=gap)
    period = policy.period_told(stated_times(first, told=told), now=told)
    restated = policy.period_restated(period, stated_times(second, told=later), now=later)
    for p in (period, restated):
        if p.valid_from is not None and p.valid_to is not None:
            assert p.valid_from < p.valid_to
        assert p.valid_from is None or p.valid_from <= later
        assert (p.valid_to is None) == (p.end_learned_at is None)
        # a precision is only ever the member's
        assert p.valid_from_precision in ("", YEAR, MONTH, DAY)
    assert restated.learned_at == told
