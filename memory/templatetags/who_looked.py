"""`{% entry_who_looked entry as looks %}`: the recalls and inspections that touched one
memory (`memory.selectors.memory_entry_who_looked`), for the memory's detail page."""

from django import template

from memory.selectors import memory_entry_who_looked

register = template.Library()


@register.simple_tag
def entry_who_looked(entry) -> list[dict]:
    return memory_entry_who_looked(member_id=entry.member_id, entry_id=entry.pk)
