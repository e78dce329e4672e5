import django_filters

from memory.enums import Lifecycle, MemoryCategory, Origin, ScopeKind
from memory.models import MemoryEntry


def text_matching(queryset, value: str):
    """The entries of ``queryset`` whose body or subject holds ``value`` (in any case).

    Bodies and subjects are sealed under the member's key: the database cannot search
    them, so the rows the other filters left are opened and searched here. The queryset
    is one member's (`memory.selectors.memory_entry_list`): a few hundred entries at
    most, opened with a key read once."""
    wanted = value.casefold()
    matched = [
        pk
        for pk, body, subject in queryset.values_list("pk", "body", "subject")
        if wanted in body.casefold() or wanted in subject.casefold()
    ]
    return queryset.filter(pk__in=matched)


class MemoryEntryFilter(django_filters.FilterSet):
    scope_kind = django_filters.ChoiceFilter(choices=ScopeKind.choices)
    category = django_filters.ChoiceFilter(choices=MemoryCategory.choices)
    lifecycle = django_filters.ChoiceFilter(choices=Lifecycle.choices)
    origin = django_filters.ChoiceFilter(choices=Origin.choices)
    q = django_filters.CharFilter(method="search", max_length=200, help_text="Text search")

    class Meta:
        model = MemoryEntry
        fields = ["scope_kind", "category", "lifecycle", "origin"]

    def search(self, queryset, name, value):
        return text_matching(queryset, value)
