"""PII redaction of free text: e-mail addresses, card numbers (Luhn), phone numbers and
street addresses replaced by typed placeholders.

Hand-written on purpose. Candidates considered: `presidio-analyzer` (NER on a spaCy
model that has to be fetched separately: far too heavy for four patterns), `scrubadub`
(last release 2023, pulls in an ML stack), `pyap` / `usaddress` (addresses only; `pyap`
unmaintained since 2020, `usaddress` parses an already isolated US address rather than
finding one in free text), `commonregex` (unmaintained since 2014) and `phonenumbers`
(well kept; its `PhoneNumberMatcher` is the natural upgrade for phone detection, not
adopted now because it is not a project dependency and needs a default region to find
national-format numbers). The patterns below are small, deterministic and tested; the
phone check is one function to swap.
"""

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from memory.enums import (
    PiiKind,
)

# --- PII redaction ----------------------------------------------------------------------

_EMAIL_ATOM = r"[\w!#$%&'*+/=?^`{|}~-]+"
_DOMAIN_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
EMAIL_RE = re.compile(
    rf"{_EMAIL_ATOM}(?:\.{_EMAIL_ATOM})*@(?:{_DOMAIN_LABEL}\.)+[A-Za-z](?:[A-Za-z0-9-]{{0,61}}"
    r"[A-Za-z0-9])?(?![\w-])"
)

# Runs of digits separated by single spaces or hyphens; cards are found inside them.
_DIGIT_RUN_RE = re.compile(r"(?<![\w.])\d+(?:[ -]\d+)*(?![\w])")
CARD_MIN_DIGITS, CARD_MAX_DIGITS = 13, 19

_PHONE_RE = re.compile(
    r"(?<![\w+])(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,5}\)[ .-]?)?\d{2,12}(?:[ .-]\d{1,12}){0,5}"
    r"(?![\w:]|[.,]\d)"
)
PHONE_MIN_DIGITS, PHONE_MAX_DIGITS = 7, 15
_DATE_RE = re.compile(r"\d{4}[./-]\d{1,2}[./-]\d{1,2}|\d{1,2}[./-]\d{1,2}[./-]\d{4}")
_LOCAL_PHONE_RE = re.compile(r"\d{3}[ .-]\d{4}")
_YEAR_RE = re.compile(r"(?:19|20)\d\d")

_STREET_WORD = (
    "street|avenue|road|boulevard|lane|drive|court|place|square|terrace|way|parkway|"
    "highway|close|crescent|circle|row|mews|alley|trail|gardens"
)
# Only abbreviations take a dot, so "Baker Street." leaves the full stop in the sentence.
_STREET_ABBREVIATION = "st|ave|rd|blvd|ln|dr|ct|pl|sq|pkwy|hwy|cir"
_UNIT = r"(?:,?\s+(?i:apt|apartment|suite|ste|unit|flat|floor|fl)\.?\s*#?\s*[\w-]+|,?\s*#\s*[\w-]+)"
# House number, one to four capitalised (or ordinal) name words, a street suffix, then an
# optional direction and unit: "221B Baker Street", "1600 Pennsylvania Avenue NW, Suite 5".
# Name words must be capitalised so "3 miles down the road" is not an address.
_ADDRESS_EN = (
    r"\b\d{1,6}[A-Za-z]?(?:[-/]\d{1,6}[A-Za-z]?)?,?\s+"
    r"(?:(?:[A-Z][\w'-]*|\d+(?i:st|nd|rd|th))\.?\s+){1,4}?"
    rf"(?:(?i:{_STREET_WORD})\b|(?i:{_STREET_ABBREVIATION})\b\.?)"
    rf"(?:\s+(?:N|S|E|W|NE|NW|SE|SW)\b)?{_UNIT}?"
)
# "Hauptstraße 12", "Lindenweg 3a".
_ADDRESS_DE = (
    r"\b[A-ZÄÖÜ][\w-]*(?i:straße|strasse|str\.|weg|gasse|platz|allee|damm)\s+\d{1,5}[a-z]?\b"
)
# "12 rue de Rivoli", "5 bis avenue Victor Hugo".
_ADDRESS_FR = (
    r"\b\d{1,5}(?:\s?(?i:bis|ter))?,?\s+(?i:rue|avenue|boulevard|bd|place|chemin|allée|"
    r"impasse|quai)\s+(?:(?:de la|de|du|des|la|le|les)\s+|[dl]')?[A-ZÀ-Ý][\w'-]*"
    r"(?:\s+[A-ZÀ-Ý][\w'-]*){0,3}"
)
ADDRESS_RE = re.compile(f"{_ADDRESS_EN}|{_ADDRESS_DE}|{_ADDRESS_FR}")


def luhn_valid(digits: str) -> bool:
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char)
        if index % 2 == 1:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


@dataclass(frozen=True, slots=True)
class RedactionResult:
    """Redacted text and what each token stood for (a kind, never the value)."""

    text: str
    tokens: Mapping[str, str] = field(default_factory=dict)  # "[EMAIL_1]" -> "email"

    @property
    def redacted(self) -> bool:
        return bool(self.tokens)


class _Tokens:
    """Hands out `[KIND_n]` tokens; the same value gets the same token within one text."""

    def __init__(self) -> None:
        self.by_value: dict[tuple[str, str], str] = {}
        self.counts: dict[str, int] = {}
        self.kinds: dict[str, str] = {}

    def token(self, kind: str, key: str) -> str:
        existing = self.by_value.get((kind, key))
        if existing is not None:
            return existing
        self.counts[kind] = self.counts.get(kind, 0) + 1
        token = f"[{kind.upper()}_{self.counts[kind]}]"
        self.by_value[(kind, key)] = token
        self.kinds[token] = str(kind)
        return token


def _only_digits(value: str) -> str:
    return "".join(char for char in value if char.isdigit())


def _replace_cards(text: str, tokens: _Tokens) -> str:
    """Within each digit run, the longest Luhn-valid window of whole groups is a card.

    Windows instead of whole runs, so "4111 1111 1111 1111 123" (card then CVV) is
    still caught.
    """

    def in_run(match: re.Match[str]) -> str:
        run = match.group(0)
        groups = list(re.finditer(r"\d+", run))
        for start in range(len(groups)):
            for end in range(len(groups), start, -1):
                span = run[groups[start].start() : groups[end - 1].end()]
                digits = _only_digits(span)
                if CARD_MIN_DIGITS <= len(digits) <= CARD_MAX_DIGITS and luhn_valid(digits):
                    head = run[: groups[start].start()]
                    tail = run[groups[end - 1].end() :]
                    return head + tokens.token(PiiKind.CARD, digits) + tail
        return run

    return _DIGIT_RUN_RE.sub(in_run, text)


def _looks_like_phone(candidate: str) -> bool:
    digits = _only_digits(candidate)
    if not PHONE_MIN_DIGITS <= len(digits) <= PHONE_MAX_DIGITS:
        return False
    if _DATE_RE.search(candidate):
        return False
    groups = re.findall(r"\d+", candidate)
    if len(groups) > 1 and all(len(g) == 4 and _YEAR_RE.fullmatch(g) for g in groups):
        return False  # "1999 2004 2011" is a list of years
    # Without an international prefix or an area code in brackets, only the shapes
    # phone numbers take are accepted: 10+ digits, or a local "555-0143".
    return (
        candidate.startswith("+")
        or "(" in candidate
        or len(digits) >= 10
        or bool(_LOCAL_PHONE_RE.fullmatch(candidate))
    )


def redact_pii_from_text(text: str) -> RedactionResult:
    """Replace emails, card numbers, phone numbers and street addresses with tokens.

    Order matters: emails first (they may hold digits), then cards (a card would
    otherwise read as a long phone number), then phones, then addresses.
    """
    tokens = _Tokens()
    text = EMAIL_RE.sub(lambda m: tokens.token(PiiKind.EMAIL, m.group(0).casefold()), text)
    text = _replace_cards(text, tokens)
    text = _PHONE_RE.sub(
        lambda m: (
            tokens.token(PiiKind.PHONE, _only_digits(m.group(0)))
            if _looks_like_phone(m.group(0))
            else m.group(0)
        ),
        text,
    )
    text = ADDRESS_RE.sub(
        lambda m: tokens.token(PiiKind.ADDRESS, " ".join(m.group(0).casefold().split())), text
    )
    return RedactionResult(text=text, tokens=MappingProxyType(dict(tokens.kinds)))
