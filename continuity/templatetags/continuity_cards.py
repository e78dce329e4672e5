"""`{% continuation_cards_for user %}`: the "Continue where you left off" section.

A template tag rather than view context, so the member memory page (in `memory`, a
layer below continuity) shows the cards without importing continuity."""

from django import template

from continuity.selectors import continuation_cards

register = template.Library()


@register.inclusion_tag("continuity/_cards.html")
def continuation_cards_for(user) -> dict:
    return {"continuation_cards": continuation_cards(member_id=user.pk)}


@register.filter
def reference_words(reference: str) -> str:
    """A surface's reference in words: "edition-odyssey" → "Edition odyssey",
    "page-112" → "page 112". References are identifiers, never content."""
    words = str(reference).replace("-", " ").replace("_", " ").strip()
    return words[:1].upper() + words[1:]
