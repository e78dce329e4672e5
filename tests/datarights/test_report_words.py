"""Issue 47, item 3: every event an access report can show is named in words a member
understands, never by its code: each action (and each former name) reads as words with no
code in them; the operator steps on a member's memory each have words of their own; who
acted is a role in words; why is the reason category in words."""

import re

import pytest

from datarights.summary import (
    ACTION_WORDS,
    APP_WORDS,
    ROLE_WORDS,
    action_words,
    report_looks,
    who_words,
    why_words,
)
from iris_site.audit.actions import APPS, LEGACY_NAMES, AuditAction
from iris_site.enums import OperatorRole

CODE = re.compile(r"[a-z_]+\.[a-z_]+|_")
# Operator steps on a member's memory that a report lists (`actor_type=operator`): each has
# words of its own, not only its app's.
OPERATOR_STEPS = [
    a
    for a in AuditAction
    if a.startswith(("inspection.", "hierarchy.stm.admin", "hierarchy.ltm"))
    or a
    in (
        AuditAction.HIERARCHY_STM_CONSOLIDATE_REQUESTED,
        AuditAction.IRIS_SITE_AUDIT_EVENTS_LISTED,
        AuditAction.DATARIGHTS_REQUEST_EXTENDED,
        AuditAction.DATARIGHTS_REQUEST_HELD,
        AuditAction.DATARIGHTS_REQUEST_REACTIVATED,
        AuditAction.DATARIGHTS_REQUEST_FAILED,
    )
]


@pytest.mark.parametrize("action", [*AuditAction, *LEGACY_NAMES])
def test_no_action_is_worded_by_its_code(action):
    words = action_words(action, {})
    assert words and not CODE.search(words), (action, words)
    verb = str(action).rsplit(".", 1)[-1]
    assert words != verb.replace("_", " "), action


def test_every_app_has_words_and_every_operator_step_its_own():
    assert set(APP_WORDS) == set(APPS)
    assert OPERATOR_STEPS
    for action in OPERATOR_STEPS:
        assert action in ACTION_WORDS, action


def test_an_inspection_step_says_what_it_did():
    step = AuditAction.INSPECTION_REQUEST_TRANSITIONED
    assert action_words(step, {"to_state": "granted"}) == "was allowed to look"
    assert action_words(step, {"to_state": "something-new"}) == ACTION_WORDS[step]


def test_who_is_a_role_in_words_never_an_id():
    for role in OperatorRole.values:
        assert who_words(role) == ROLE_WORDS[role] and who_words(role).startswith("an Iris")
    assert who_words(None) == "an Iris operator"


def test_why_is_the_reason_category_in_words():
    assert why_words("routine-review") == "for a routine review"
    assert why_words("") == ""
    assert "_" not in why_words("some_new-code")


def test_a_stored_report_is_worded_at_reading_even_if_stored_with_a_code():
    stored = [
        {
            "action": "iris.admin_inspection.read",
            "actor_role": "legal",
            "occurred_at": "2026-12-01T10:00:00Z",
            "payload": {"path": "dsar-fulfillment"},
            "what": "read",
        }
    ]
    [look] = report_looks(stored)
    assert look == {
        "occurred_at": "2026-12-01T10:00:00Z",
        "who": "an Iris operator (legal)",
        "what": "looked at the memories allowed",
        "why": "to fulfil your data-rights request",
    }


def test_the_confirmation_mail_words_every_kind_grammatically():
    from datarights.enums import RequestKind
    from datarights.services import MAIL_ASKED_FOR

    assert set(MAIL_ASKED_FOR) == set(RequestKind.values)
    for words in MAIL_ASKED_FOR.values():
        assert not re.search(r"\ba [aeiou]", words), words
