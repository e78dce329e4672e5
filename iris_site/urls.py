from django.conf import settings
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from django.views.decorators.csp import csp_override
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView

from consent.urls import me_api_urlpatterns as consent_me_api
from continuity.urls import me_api_urlpatterns as continuity_me_api
from continuity.urls import service_api_urlpatterns as continuity_service_api
from datarights.urls import me_api_urlpatterns as datarights_me_api
from datarights.urls import operator_api_urlpatterns as datarights_operator_api
from datarights.urls import page_urlpatterns as datarights_pages
from hierarchy.urls import dashboard_urlpatterns as hierarchy_dashboard
from hierarchy.urls import members_api_urlpatterns as hierarchy_members_api
from hierarchy.urls import operator_api_urlpatterns as hierarchy_operator_api
from inspection.urls import me_api_urlpatterns as inspection_me_api
from inspection.urls import operator_api_urlpatterns as inspection_operator_api
from iris_site import telemetry, views
from iris_site.api.gated import content_free
from iris_site.api.step_up import StepUpTokenApi
from iris_site.audit.urls import operator_api_urlpatterns as audit_operator_api
from iris_site.operators import device_signins
from memory.http.urls import events_api_urlpatterns as memory_events_api
from memory.http.urls import me_api_urlpatterns as memory_me_api
from memory.http.urls import service_api_urlpatterns as memory_service_api
from memory.recall import apis as recall_apis
from webhooks.urls import operator_api_urlpatterns as webhooks_operator_api

handler404 = "iris_site.api.exceptions.json_not_found_for_api"
handler500 = "iris_site.api.exceptions.json_server_error_for_api"

me_api = [
    *consent_me_api,
    *continuity_me_api,
    *datarights_me_api,
    *inspection_me_api,
    *memory_me_api,
    path("recalls/", recall_apis.MemberRecallListApi.as_view(), name="recall-list"),
    path("tokens/step-up/", StepUpTokenApi.as_view(), name="token-step-up"),
]
members_api = [
    *hierarchy_members_api,
    *continuity_service_api,
    *memory_service_api,
    path("<uuid:member_id>/recall/", recall_apis.RecallApi.as_view(), name="recall"),
]
operator_api = [
    *audit_operator_api,
    *hierarchy_operator_api,
    *inspection_operator_api,
    *datarights_operator_api,
    *webhooks_operator_api,
]

urlpatterns = [
    path("", views.HomeView.as_view(), name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("metrics", telemetry.metrics_view, name="metrics"),
    # Django's sign-in pages hold no member content.
    path(
        "accounts/login/",
        content_free(
            device_signins(auth_views.LoginView.as_view(redirect_authenticated_user=True))
        ),
        name="login",
    ),
    path("accounts/logout/", content_free(auth_views.LogoutView.as_view()), name="logout"),
    # The admin's own sign-in, so an operator's device is known there too (four eyes).
    path("admin/login/", content_free(device_signins(admin.site.login))),
    path("admin/", admin.site.urls),
    path("dashboard/admin/", include((hierarchy_dashboard, "hierarchy"))),
    path("console/", include("console.urls")),
    path("profile/memory/data/", include((datarights_pages, "datarights"))),
    path("profile/memory/", include("memory.http.page_urls")),
    # The API's own description holds no member content (framework views are declared here).
    path("api/schema/", content_free(SpectacularAPIView.as_view()), name="schema"),
    path(
        "api/docs/",
        content_free(
            csp_override(settings.IRIS_DOCS_CSP)(SpectacularRedocView.as_view(url_name="schema"))
        ),
        name="api-docs",
    ),
    path("api/v1/me/", include((me_api, "me"))),
    path("api/v1/members/", include((members_api, "members"))),
    path("api/v1/operator/", include((operator_api, "operator"))),
    path("api/v1/events/", include((memory_events_api, "events"))),
]
