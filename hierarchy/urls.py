from django.urls import path

from hierarchy import apis

app_name = "hierarchy"

operator_api_urlpatterns = [
    path("audit-events/", apis.AuditEventListApi.as_view(), name="audit-event-list"),
    path("audit-events/verify/", apis.AuditChainVerifyApi.as_view(), name="audit-chain-verify"),
]
