"""The "Continue where you left off" partial and the demo tokens behind it."""

from datetime import timedelta
from html.parser import HTMLParser

import pytest
from django.template.loader import render_to_string

from continuity import demo
from continuity.models import ContinuationToken
from continuity.selectors import continuation_cards
from tests.consent.factories import record
from tests.continuity.factories import T0, audit_events, write
from tests.iris_site.factories import MemberFactory

pytestmark = pytest.mark.django_db

TEMPLATE = "continuity/_cards.html"


class Outline(HTMLParser):
    """Tags in order, with the attributes a screen reader relies on."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.ids: list[str] = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        self.tags.append((tag, attributes))
        if "id" in attributes:
            self.ids.append(attributes["id"])


def outline(html: str) -> Outline:
    parser = Outline()
    parser.feed(html)
    return parser


def render(member) -> str:
    return render_to_string(
        TEMPLATE, {"continuation_cards": continuation_cards(member_id=member.pk)}
    )


def test_cards_render_as_a_labelled_section_with_a_list_per_surface():
    # given
    member = MemberFactory()
    write(member, now=T0, surface="nisaba", scope_key="notebook:n", posture="reading")
    write(
        member,
        now=T0 + timedelta(minutes=1),
        anchor_ref={"surface": "tara", "anchor_id": "chapter-4", "cursor": "00:14:32"},
    )
    # when
    html = render(member)
    # then
    parsed = outline(html)
    section, attrs = parsed.tags[0]
    assert section == "section" and attrs["aria-labelledby"] == "continuation-cards-heading"
    assert "Continue where you left off" in html
    headings = [a.get("id") for t, a in parsed.tags if t == "h3"]
    assert headings == ["continuation-tara", "continuation-nisaba"]
    assert [a["aria-labelledby"] for t, a in parsed.tags if t == "section"][1:] == headings
    assert len(parsed.ids) == len(set(parsed.ids))  # ids are unique in the page
    assert "Chapter 4" in html and "00:14:32" in html and "Listening" in html
    assert "chapter-4" not in html  # references in words, not as identifiers
    assert '<time datetime="2026-11-30T10:01:00+00:00">' in html


def test_no_tokens_renders_an_empty_state():
    html = render(MemberFactory())
    assert "Nothing to continue yet." in html
    assert not [t for t, _ in outline(html).tags if t == "ul"]


def test_the_browser_never_shows_a_sensitive_card_without_cross_device_consent():
    member = MemberFactory()
    grant = record(member, "cross_device").event
    write(
        member,
        surface="psyche",
        device_id="phone-1",
        anchor_ref={"surface": "psyche", "anchor_id": "grief-session-2", "cursor": "00:03:10"},
        sensitive_categories=["mental_health"],
        cross_device_consent_id=str(grant.pk),
    )
    assert "Grief session 2" in render(member)
    record(member, "cross_device", kind="withdrawal")
    assert "Grief session 2" not in render(member)


def test_the_demo_seed_adds_two_tokens_for_the_first_member_once():
    first, second = MemberFactory(), MemberFactory()
    data = {"members": [{"id": str(first.pk)}, {"id": str(second.pk)}]}
    demo.seed(data)
    demo.seed(data)
    tokens = ContinuationToken.objects.filter(member=first)
    assert sorted(tokens.values_list("surface", "revision")) == [("nisaba", 1), ("tara", 1)]
    assert not ContinuationToken.objects.filter(member=second).exists()
    assert len(audit_events("continuity.token.written", first)) == 2
