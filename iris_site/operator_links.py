"""Which operator accounts Iris must treat as one person, for four eyes.

Pure: given the account changes (`OperatorAccountChange` rows, reduced to `Change`) and
the operator sign-ins (`OperatorSignIn`, reduced to `SignIn`: a keyed digest of the
browser's device cookie), decide whether two accounts are linked, and why. No ORM; tested
without a database (`tests/iris_site/test_operator_links.py`), and the property test
(`tests/trust/test_four_eyes_people.py`) drives it through the services.

Two accounts are linked (one person, for an approval) when any of these holds:

- `same-account`: they are the same account;
- `role-granted` (any time): one asked for or approved an account creation or role change
  that gave the other a role. A role you were handed by someone is never their second
  pair of eyes, however long ago;
- `account-changed` (within the window): one asked for or decided any change of the
  other's account (created, role, tenant, deactivated, reactivated), in any state
  (a refused or pending request still shows who tried);
- `same-author` (within the window): a third account asked for changes to both accounts.
  Whoever types a new account into the admin chooses its first password, so two accounts
  one admin made are that admin's until their owners have lived in them for a window;
- `shared-device` (within the window): both signed in from the same browser (the same
  device cookie, kept only as a keyed digest);
- `chain` (within the window): linked through other accounts by the author and device
  links above (X made A, A made B: X and B are one person too).

Deciding a change (a second admin approving it) links the decider to its subject
directly (`account-changed`, `role-granted`) but does not carry links to third accounts:
the decider never holds the subject's password, and counting approvals as authorship would
tie every account one reviewing admin ever approved into one person.

What no link catches: one person holding two accounts that two different admins made for
them, used from two browsers, more than a window after their last change. That is why a
role that can approve is itself a four-eyes change (`iris_site.operators`): the second
admin who approves it vouches for the person.
"""

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

SAME_ACCOUNT = "same-account"
ROLE_GRANTED = "role-granted"
ACCOUNT_CHANGED = "account-changed"
SAME_AUTHOR = "same-author"
SHARED_DEVICE = "shared-device"
CHAIN = "chain"
REASONS = (SAME_ACCOUNT, ROLE_GRANTED, ACCOUNT_CHANGED, SAME_AUTHOR, SHARED_DEVICE, CHAIN)

REASON_WORDS = {
    SAME_ACCOUNT: "it is the same account",
    ROLE_GRANTED: "one of you gave the other a role",
    ACCOUNT_CHANGED: "one of you created or changed the other's account recently",
    SAME_AUTHOR: "the same operator created or changed both accounts recently",
    SHARED_DEVICE: "both accounts signed in from the same browser recently",
    CHAIN: "your accounts are linked through other accounts' recent changes or sign-ins",
}

DEFAULT_WINDOW = timedelta(days=30)


@dataclass(frozen=True, slots=True)
class Change:
    """One account change: whose account, what, who asked, who decided, and when."""

    subject: object
    kind: str
    requested_by: object | None
    requested_at: datetime
    decided_by: object | None = None
    decided_at: datetime | None = None
    role_to: str = ""
    state: str = "applied"


@dataclass(frozen=True, slots=True)
class SignIn:
    account: object
    device: str
    at: datetime


def _recent(moment: datetime | None, *, now: datetime, window: timedelta) -> bool:
    return moment is not None and moment >= now - window


def _touches(change: Change, a, b) -> bool:
    """`change` is about one of a, b and was asked for or decided by the other."""
    return (change.subject == a and b in (change.requested_by, change.decided_by)) or (
        change.subject == b and a in (change.requested_by, change.decided_by)
    )


class _Components:
    def __init__(self) -> None:
        self.parent: dict = {}

    def find(self, x):
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def join(self, x, y) -> None:
        self.parent[self.find(x)] = self.find(y)


def link_reasons(
    a,
    b,
    *,
    changes: Iterable[Change],
    signins: Iterable[SignIn] = (),
    now: datetime,
    window: timedelta = DEFAULT_WINDOW,
) -> tuple[str, ...]:
    """Every reason accounts `a` and `b` are one person for an approval; () if none."""
    if a == b:
        return (SAME_ACCOUNT,)
    changes = list(changes)
    signins = [s for s in signins if _recent(s.at, now=now, window=window)]
    reasons: list[str] = []
    if any(
        c.role_to and c.kind in ("created", "role") and c.state == "applied" and _touches(c, a, b)
        for c in changes
    ):
        reasons.append(ROLE_GRANTED)
    if any(
        _touches(c, a, b)
        and (
            _recent(c.requested_at, now=now, window=window)
            or _recent(c.decided_at, now=now, window=window)
        )
        for c in changes
    ):
        reasons.append(ACCOUNT_CHANGED)
    recent = [
        c
        for c in changes
        if c.requested_by is not None and _recent(c.requested_at, now=now, window=window)
    ]
    authors_a = {c.requested_by for c in recent if c.subject == a} - {a, b}
    authors_b = {c.requested_by for c in recent if c.subject == b} - {a, b}
    if authors_a & authors_b:
        reasons.append(SAME_AUTHOR)
    devices_a = {s.device for s in signins if s.account == a}
    devices_b = {s.device for s in signins if s.account == b}
    if devices_a & devices_b:
        reasons.append(SHARED_DEVICE)
    if not reasons:
        components = _Components()
        for change in recent:
            components.join(change.subject, change.requested_by)
        by_device: dict[str, object] = {}
        for signin in signins:
            first = by_device.setdefault(signin.device, signin.account)
            components.join(first, signin.account)
        if components.find(a) == components.find(b):
            reasons.append(CHAIN)
    return tuple(reasons)


def explain(reasons: Iterable[str]) -> str:
    return "; ".join(REASON_WORDS[r] for r in reasons if r in REASON_WORDS)
