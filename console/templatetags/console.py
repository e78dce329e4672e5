"""The console nav: only the pages this operator's role may open (the same role sets the
pages' own `console_page(roles=...)` checks use)."""

from django import template
from django.urls import reverse

from console.access import operator_role
from console.datarights import DATARIGHTS_ROLES
from console.operators import OPERATOR_ROLES
from console.webhooks import WEBHOOK_ROLES
from memory.sweeps.reviews import REVIEWER_ROLES

register = template.Library()

# (section, URL name, label, roles that may open it; None: every operator)
LINKS = (
    ("home", "console:home", "Waiting for you", None),
    ("inspections", "console:inspections", "Inspections", None),
    ("datarights", "console:datarights", "Data rights", frozenset(DATARIGHTS_ROLES)),
    ("reviews", "console:reviews", "Reviews", REVIEWER_ROLES),
    ("webhooks", "console:webhooks", "Webhooks", frozenset(WEBHOOK_ROLES)),
    ("operators", "console:operators", "Operators", frozenset(OPERATOR_ROLES)),
    ("dashboard", "console:dashboard", "Dashboard", None),
)


@register.simple_tag(takes_context=True)
def console_links(context) -> list[dict]:
    role = operator_role(context["request"].user)
    current = context.get("console_section")
    return [
        {"url": reverse(name), "label": label, "current": section == current}
        for section, name, label, roles in LINKS
        if roles is None or role in roles
    ]
