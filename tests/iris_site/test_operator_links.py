"""Which accounts are one person for four eyes (`iris_site.operator_links`), without a
database: each link, the window, and a property over random account histories: two
accounts of one person are always linked."""

from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from iris_site.operator_links import (
    ACCOUNT_CHANGED,
    CHAIN,
    DEFAULT_WINDOW,
    ROLE_GRANTED,
    SAME_ACCOUNT,
    SAME_AUTHOR,
    SHARED_DEVICE,
    Change,
    SignIn,
    explain,
    link_reasons,
)

NOW = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)
RECENT = NOW - timedelta(days=2)
OLD = NOW - DEFAULT_WINDOW - timedelta(days=1)


def links(a, b, changes=(), signins=()):
    return link_reasons(a, b, changes=changes, signins=signins, now=NOW)


def test_an_account_is_itself():
    assert links("x", "x") == (SAME_ACCOUNT,)


def test_strangers_are_not_linked():
    changes = [Change("a", "created", None, RECENT), Change("b", "created", None, RECENT)]
    assert links("a", "b", changes) == ()


def test_creating_the_others_account_links_them_within_the_window_only():
    recent = [Change("b", "tenant", "a", RECENT)]
    old = [Change("b", "tenant", "a", OLD)]
    assert links("a", "b", recent) == (ACCOUNT_CHANGED,)
    assert links("b", "a", recent) == (ACCOUNT_CHANGED,)
    assert links("a", "b", old) == ()


def test_a_role_given_by_the_other_links_them_for_good():
    # the requester `a` asked for the approver's legal role a year ago; `c` approved it
    changes = [
        Change("b", "role", "a", NOW - timedelta(days=365), "c", NOW - timedelta(days=364), "legal")
    ]
    assert ROLE_GRANTED in links("a", "b", changes)
    assert ROLE_GRANTED in links("c", "b", changes)  # the decider gave it too
    # a refused role request is no role given, and is forgotten after the window
    refused = [Change("b", "role", "a", OLD, role_to="legal", state="refused")]
    assert links("a", "b", refused) == ()


def test_one_author_of_both_accounts_links_them():
    changes = [Change("a", "created", "x", RECENT), Change("b", "created", "x", RECENT)]
    assert links("a", "b", changes) == (SAME_AUTHOR,)
    # but an approving admin who only decided both does not
    decided = [
        Change("a", "role", "p", OLD, "y", RECENT, "legal"),
        Change("b", "role", "q", OLD, "y", RECENT, "legal"),
    ]
    assert links("a", "b", decided) == ()


def test_the_same_browser_links_them_within_the_window_only():
    assert links("a", "b", signins=[SignIn("a", "d1", RECENT), SignIn("b", "d1", RECENT)]) == (
        SHARED_DEVICE,
    )
    assert links("a", "b", signins=[SignIn("a", "d1", OLD), SignIn("b", "d1", RECENT)]) == ()
    assert links("a", "b", signins=[SignIn("a", "d1", RECENT), SignIn("b", "d2", RECENT)]) == ()


def test_links_chain_through_other_accounts():
    # x made a, a made b: x and b are one person; c shares a browser with b
    changes = [Change("a", "created", "x", RECENT), Change("b", "created", "a", RECENT)]
    signins = [SignIn("b", "d", RECENT), SignIn("c", "d", RECENT)]
    assert links("x", "b", changes) == (CHAIN,)
    assert links("x", "c", changes, signins) == (CHAIN,)


def test_every_reason_has_words():
    assert "same browser" in explain([SHARED_DEVICE])


# --- Property: one person's accounts are always linked ------------------------------------

PERSON_DEVICES = 3


@st.composite
def histories(draw):
    """Random people and accounts: a few bootstrapped (one person each, by a command on
    the server), then accounts made by existing ones, for their own person (a second
    account: its author chose the password) or for a new person; role and tenant changes by
    anyone of anyone; sign-ins, each from one of its person's own browsers. Everything
    within the link window."""
    owner: dict[int, int] = {}
    changes: list[Change] = []
    signins: list[SignIn] = []
    people = draw(st.integers(1, 3))
    for person in range(people):
        owner[len(owner)] = person
        changes.append(Change(len(owner) - 1, "created", None, RECENT))
    for _ in range(draw(st.integers(0, 14))):
        at = NOW - timedelta(seconds=draw(st.integers(0, int(DEFAULT_WINDOW.total_seconds()))))
        kind = draw(st.sampled_from(["create-own", "create-other", "change", "signin"]))
        actor = draw(st.sampled_from(sorted(owner)))
        if kind.startswith("create"):
            person = owner[actor] if kind == "create-own" else people
            people += kind == "create-other"
            new = len(owner)
            owner[new] = person
            changes.append(Change(new, "created", actor, at, role_to="support"))
        elif kind == "change":
            subject = draw(st.sampled_from(sorted(owner)))
            role = draw(st.sampled_from(["legal", "t&s", "admin", "support"]))
            state = draw(st.sampled_from(["applied", "pending", "refused"]))
            changes.append(Change(subject, "role", actor, at, role_to=role, state=state))
        else:
            device = f"p{owner[actor]}-d{draw(st.integers(0, PERSON_DEVICES - 1))}"
            signins.append(SignIn(actor, device, at))
    return owner, changes, signins


@settings(max_examples=400, deadline=None)
@given(histories())
def test_no_two_accounts_of_one_person_are_ever_unlinked(history):
    owner, changes, signins = history
    for a in owner:
        for b in owner:
            if owner[a] == owner[b]:
                assert link_reasons(a, b, changes=changes, signins=signins, now=NOW), (a, b)
