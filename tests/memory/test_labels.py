"""Members read plain words: every internal value has a label in `memory.labels`, the
member pages use them (no internal key on the memory page for the demo data), groups
come profile first, and page titles are plain text."""

import html
import json
import re

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from consent.enums import (
    CONSENT_TYPES,
    BaseConsentType,
    CaptureMethod,
    ConsentStatus,
    OptOutCategory,
)
from datarights.enums import RequestStatus, VerificationMethod
from iris_site.models import User
from memory import labels
from memory.enums import (
    ChangeType,
    EntryAuditAction,
    Lifecycle,
    MemoryCategory,
    Origin,
    ProvenanceKind,
    ScopeKind,
)
from tests.memory.factories import consenting_member, remember
from tests.stepup import step_up

pytestmark = pytest.mark.django_db

VOCABULARIES = [
    (ScopeKind, labels.SCOPE_LABELS),
    (MemoryCategory, labels.CATEGORY_LABELS),
    (Origin, labels.ORIGIN_LABELS),
    (Lifecycle, labels.LIFECYCLE_LABELS),
    (ProvenanceKind, labels.PROVENANCE_LABELS),
    (EntryAuditAction, labels.REVISION_ACTION_LABELS),
    (BaseConsentType, labels.CONSENT_LABELS),
    (ConsentStatus, labels.CONSENT_STATUS_LABELS),
    (CaptureMethod, labels.CAPTURE_METHOD_LABELS),
    (VerificationMethod, labels.VERIFICATION_METHOD_LABELS),
    (RequestStatus, labels.REQUEST_STATUS_LABELS),
    (ChangeType, labels.CHANGE_TYPE_LABELS),
]
# What a member must never read (the issue's list and the raw keys' shapes).
INTERNAL = [
    "Operator Copilot",
    "Operator copilot",
    "operator-copilot",
    "Religion User Redacted",
    "religion_user_redacted",
    "Multi actor sensitive",
    "multi-actor-sensitive",
    "(session-token)",
    "User-stated",
    "User stated",
    "Model inferred",
    "Model-inferred",
    "Mental health" + "_",
    "mental_health",
    "Summarized from session",
    "Pose alignment",
    "Tombstoned",
]


@pytest.mark.parametrize(
    ("enum", "mapping"), VOCABULARIES, ids=lambda v: getattr(v, "__name__", "")
)
def test_every_value_has_a_member_label(enum, mapping):
    assert set(enum.values) <= {str(k) for k in mapping}
    for value in enum.values:
        label = str(mapping[value])
        # A plain word may be its own label ("edited"); a key with _ or - never is.
        assert label and "_" not in label and (label != value or value.isalpha())


def test_every_consent_type_and_opt_out_has_a_plain_label():
    for consent_type in CONSENT_TYPES:
        label = labels.consent_label(consent_type)
        assert ":" not in label and "_" not in label and "-" not in label
    for category in OptOutCategory.values:
        assert labels.opt_out_label(category) == OptOutCategory(category).label


def test_labels_are_translatable():
    # gettext_lazy proxies: Django's i18n translates them at render time.
    assert type(labels.CATEGORY_LABELS[MemoryCategory.MENTAL_HEALTH]).__name__ == "__proxy__"


def test_scope_groups_come_profile_first_and_crisis_last():
    assert labels.SCOPE_ORDER[0] == ScopeKind.PROFILE
    assert labels.SCOPE_ORDER[-1] == ScopeKind.CRISIS
    assert [c for c, _ in labels.SCOPE_CHOICES] == list(labels.SCOPE_ORDER)


def _visible_text(page: str) -> str:
    """The text a member reads: tags, attributes, scripts and comments dropped."""
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    page = re.sub(r"<!--.*?-->", " ", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def test_no_internal_key_on_the_memory_page_for_the_demo_data(capsys):
    call_command("seed_demo", "--json")
    data = json.loads(capsys.readouterr().out)
    for row in data["members"]:
        client = Client()
        client.force_login(User.objects.get(pk=row["id"]))
        page = client.get(reverse("memory:index"))
        assert page.status_code == 200
        text = _visible_text(page.content.decode())
        for word in INTERNAL:
            assert word not in text, (row["email"], word)
        headings = re.findall(r'<h2 id="scope-\d+">([^<]+)</h2>', page.content.decode())
        assert headings[0] == str(labels.SCOPE_LABELS[ScopeKind.PROFILE]), headings
        assert str(labels.SCOPE_LABELS[ScopeKind.CRISIS]) not in headings[:1]
        for entry_page in ("consents",):
            text = _visible_text(client.get(reverse(f"memory:{entry_page}")).content.decode())
            for word in INTERNAL:
                assert word not in text, (entry_page, word)


def test_detail_and_history_pages_use_member_words():
    member = consenting_member("category:mental_health")
    entry = remember(member, category="mental_health", body="I get anxious before flights").entry
    client = Client()
    client.force_login(member)
    step_up(client)
    detail = _visible_text(client.get(reverse("memory:detail", args=[entry.pk])).content.decode())
    assert "Mental health" in detail and "About you" in detail and "You told Iris" in detail
    history = _visible_text(client.get(reverse("memory:history", args=[entry.pk])).content.decode())
    assert "Version 1: Remembered" in history and "by you" in history
    for word in INTERNAL:
        assert word not in detail and word not in history, word


def test_the_notices_page_title_is_plain_text():
    member = consenting_member()
    client = Client()
    client.force_login(member)
    step_up(client)
    page = client.get(reverse("memory:notices")).content.decode()
    title = re.search(r"<title>(.*?)</title>", page, flags=re.S).group(1)
    assert "<" not in title and ">" not in title
    assert title.strip() == "Questions and notices · Iris"


def test_forgetting_a_category_says_how_many_and_which_in_plain_words():
    member = consenting_member("category:mental_health")
    remember(member, category="mental_health", subject="flights", body="I fear flying")
    remember(member, category="mental_health", subject="sleep", body="I sleep badly in spring")
    client = Client()
    client.force_login(member)
    step_up(client)
    response = client.post(
        reverse("memory:forget-category"),
        {"category": "mental_health", "confirm": "1"},
        follow=True,
    )
    assert "Forgot 2 memories about mental health" in response.content.decode()


def test_an_empty_sign_in_marks_both_fields():
    response = Client().post(reverse("login"), {"username": "", "password": ""})
    page = response.content.decode()
    assert response.status_code == 200
    assert 'id="id_username-error"' in page and 'id="id_password-error"' in page
    assert page.count('aria-invalid="true"') == 2
    assert 'rel="icon"' in page and "favicon.svg" in page
