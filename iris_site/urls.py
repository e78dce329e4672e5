from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from consent.urls import me_api_urlpatterns as consent_me_api
from hierarchy.urls import operator_api_urlpatterns as hierarchy_operator_api
from iris_site import views
from memory import recall_apis

handler404 = "iris_site.api.exceptions.json_not_found_for_api"
handler500 = "iris_site.api.exceptions.json_server_error_for_api"

me_api = [
    *consent_me_api,
    path("recalls/", recall_apis.MemberRecallListApi.as_view(), name="recall-list"),
]
members_api = [
    path("<uuid:member_id>/recall/", recall_apis.RecallApi.as_view(), name="recall"),
]
operator_api = [*hierarchy_operator_api]

urlpatterns = [
    path("", views.HomeView.as_view(), name="home"),
    path("healthz", views.healthz, name="healthz"),
    path(
        "accounts/login/",
        auth_views.LoginView.as_view(redirect_authenticated_user=True),
        name="login",
    ),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
    path("api/v1/me/", include((me_api, "me"))),
    path("api/v1/members/", include((members_api, "members"))),
    path("api/v1/operator/", include((operator_api, "operator"))),
]
