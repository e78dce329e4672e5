import django_filters
from django.db.models import Q

from memory.enums import Lifecycle, MemoryCategory, Origin, ScopeKind
from memory.models import MemoryEntry


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
        return queryset.filter(Q(body__icontains=value) | Q(subject__icontains=value))
