import django_filters

from consent.models import ConsentEvent


class ConsentEventFilter(django_filters.FilterSet):
    class Meta:
        model = ConsentEvent
        fields = ["consent_type", "kind"]
