"""`{% inspection_notices_for user %}`: who looked at the member's memory, and why.

A template tag, so the member memory page (in `memory`, below inspection) lists
inspection notices without importing inspection."""

from django import template

from inspection.selectors import inspection_notice_summary, inspection_notices_for_member

register = template.Library()


@register.inclusion_tag("inspection/_notices.html")
def inspection_notices_for(user) -> dict:
    return {
        "inspection_notices": [
            inspection_notice_summary(notice)
            for notice in inspection_notices_for_member(user.pk)[:50]
        ]
    }
