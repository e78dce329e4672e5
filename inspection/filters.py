import django_filters

from inspection.enums import InspectionState, ReasonCode
from inspection.models import InspectionRequest


class InspectionRequestFilter(django_filters.FilterSet):
    state = django_filters.ChoiceFilter(choices=InspectionState.choices)
    reason_code = django_filters.ChoiceFilter(choices=ReasonCode.choices)
    member_id = django_filters.UUIDFilter(field_name="member_id")

    class Meta:
        model = InspectionRequest
        fields = ["state", "reason_code", "member_id", "include_sensitive"]
