from django.urls import path

from iris_site.audit import apis

# Mounted at /api/v1/operator/ beside the other apps' operator endpoints.
operator_api_urlpatterns = [
    path("audit-events/", apis.AuditEventListApi.as_view(), name="audit-event-list"),
    path("audit-events/verify/", apis.AuditChainVerifyApi.as_view(), name="audit-chain-verify"),
]
