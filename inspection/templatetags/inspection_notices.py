"""`{% inspection_notices_for user %}`: who looked at the member's memory, and why.

A template tag, so the member memory page (in `memory`, below inspection) lists
inspection notices without importing inspection."""

from django import template

from inspection.disclosures import member_inspection_notices

register = template.Library()


@register.inclusion_tag("inspection/_notices.html")
def inspection_notices_for(user) -> dict:
    # Sensitive inspections' delivered notices and closed non-sensitive inspections.
    return {"inspection_notices": member_inspection_notices(user.pk)}
