"""When a relationship was true, in the member's words: a small pure reader of the time
phrases a note says ("since 2019", "until March", "we broke up in March", "two years ago").

No Django import, no model: tested without a database. It never guesses. A phrase it does
not understand, or one that could mean two times ("until March" said in January: last
March or the coming one?), reads as nothing, and the time stays open.

A time is a `Point`: the first instant of the year, month or day the member named, with
that precision, so a page can say "since 2019" rather than a made-up exact date. The
member speaks of the past: a month without a year is the latest such month not after the
time they said it ("until March" told in June is this March), and a point after the time
they said it is never read.
"""

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

Precision = Literal["year", "month", "day"]
YEAR, MONTH, DAY = "year", "month", "day"


@dataclass(frozen=True, slots=True)
class Point:
    at: datetime  # the first instant of the period named (UTC)
    precision: Precision

    def end(self) -> datetime:
        """The first instant after the period named."""
        if self.precision == YEAR:
            return self.at.replace(year=self.at.year + 1)
        if self.precision == MONTH:
            year, month = divmod(self.at.month, 12)
            return self.at.replace(year=self.at.year + year, month=month + 1)
        return datetime.fromordinal(self.at.toordinal() + 1).replace(tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class Stated:
    """What a statement says of when its relationship was true; None: it did not say."""

    start: Point | None = None
    end: Point | None = None


NOTHING = Stated()

_MONTHS = {
    name: i + 1
    for i, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ]
    )
    for name in names
}
_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
}
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_COUNT = r"\d{1,2}|" + "|".join(_NUMBERS)
# The time a phrase names, after its marker word.
_TIME = (
    rf"(?P<iso>\d{{4}}-\d{{2}}-\d{{2}})"
    rf"|(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\s+(?P<dmonth>{_MONTH})\.?\s+(?P<dyear>\d{{4}})"
    rf"|(?P<month>{_MONTH})\.?(?:\s+(?P<myear>\d{{4}}))?"
    rf"|(?P<year>(?:19|20)\d{{2}})"
    rf"|(?P<last>last|this)\s+(?P<unit>year|month)"
    rf"|(?P<count>{_COUNT})\s+(?P<ago>years?|months?)\s+ago"
)
# Words saying the relationship began, or ended, at the time named.
_STARTS = r"since|from|started|began|met|married|got\s+together|moved\s+in"
_ENDS = (
    r"until|till|til|up\s+to|ended|broke\s+up|split\s+up|split|separated|divorced|left"
    r"|stopped|quit|moved\s+out|died"
)
_PHRASE = re.compile(
    rf"\b(?:(?P<starts>{_STARTS})|(?P<ends>{_ENDS}))(?:\s+(?:in|on|at))?\s+(?:{_TIME})\b",
    re.IGNORECASE,
)
# A time before this year is not a member's relationship ("since 0001-01-01"): not read.
# The bare-year form already reads only 19xx and 20xx; a dated form keeps to the same.
EARLIEST_YEAR = 1900
# "until" and "from" also speak of the future: only a month already past when said is read.
_FORWARD = {"until", "till", "til", "up to", "from"}


def _month_before(month: int, *, told: datetime, forward: bool) -> datetime | None:
    """The latest `month` not after `told`; None when the word may mean the coming one."""
    if forward and month > told.month:
        return None
    year = told.year if month <= told.month else told.year - 1
    return datetime(year, month, 1, tzinfo=UTC)


def _point(match: re.Match, *, told: datetime, forward: bool) -> Point | None:
    """The time one phrase names; None when it names none (31 February, year 0000)."""
    try:
        return _named(match.groupdict(), told=told, forward=forward)
    except ValueError:
        return None


def _named(g: dict, *, told: datetime, forward: bool) -> Point | None:
    if g["iso"]:
        return Point(datetime.fromisoformat(g["iso"]).replace(tzinfo=UTC), DAY)
    if g["day"]:
        month = _MONTHS[g["dmonth"].casefold()]
        return Point(datetime(int(g["dyear"]), month, int(g["day"]), tzinfo=UTC), DAY)
    if g["month"]:
        month = _MONTHS[g["month"].casefold()]
        if g["myear"]:
            return Point(datetime(int(g["myear"]), month, 1, tzinfo=UTC), MONTH)
        at = _month_before(month, told=told, forward=forward)
        return None if at is None else Point(at, MONTH)
    if g["year"]:
        return Point(datetime(int(g["year"]), 1, 1, tzinfo=UTC), YEAR)
    if g["last"]:
        back = 1 if g["last"].casefold() == "last" else 0
        if g["unit"].casefold() == "year":
            return Point(datetime(told.year - back, 1, 1, tzinfo=UTC), YEAR)
        year, month = divmod(told.year * 12 + told.month - 1 - back, 12)
        return Point(datetime(year, month + 1, 1, tzinfo=UTC), MONTH)
    count = g["count"].casefold()
    n = _NUMBERS.get(count) or int(count)
    if g["ago"].casefold().startswith("year"):
        return Point(datetime(told.year - n, 1, 1, tzinfo=UTC), YEAR)
    year, month = divmod(told.year * 12 + told.month - 1 - n, 12)
    return Point(datetime(year, month + 1, 1, tzinfo=UTC), MONTH)


def time_words(text: str) -> tuple[str, ...]:
    """The phrases of `text` that say a time ("since 2019", "until March"), as written
    (case and spacing aside): two texts with the same say the same times, told alike."""
    return tuple(" ".join(m[0].casefold().split()) for m in _PHRASE.finditer(text or ""))


def stated_times(text: str, *, told: datetime) -> Stated:
    """When the relationship `text` speaks of began and/or ended, as said at `told`.

    Each of start and end is read only when the text says it once, plainly: two
    different starts (or ends), a time after `told`, or an end before the start, and that
    time stays open (None)."""
    told = told.astimezone(UTC)
    starts: set[Point] = set()
    ends: set[Point] = set()
    for match in _PHRASE.finditer(text or ""):
        word = " ".join((match["starts"] or match["ends"]).casefold().split())
        point = _point(match, told=told, forward=word in _FORWARD)
        if point is None or point.at > told or point.at.year < EARLIEST_YEAR:
            continue
        (starts if match["starts"] else ends).add(point)
    start = next(iter(starts)) if len(starts) == 1 else None
    end = next(iter(ends)) if len(ends) == 1 else None
    if start and end and end.at <= start.at:
        return NOTHING
    return Stated(start=start, end=end)
