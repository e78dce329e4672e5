from django.urls import path

from hierarchy import operator_apis, question_apis, stm_apis, views

app_name = "hierarchy"

operator_api_urlpatterns = [
    path(
        "memory-hierarchy/counts/",
        operator_apis.HierarchyCountsApi.as_view(),
        name="memory-hierarchy-counts",
    ),
    path(
        "memory-hierarchy/replay/<str:scope_id>/",
        operator_apis.ReplayApi.as_view(),
        name="memory-hierarchy-replay",
    ),
    path(
        "memory-hierarchy/stm/<str:scope_id>/",
        operator_apis.AdminStmApi.as_view(),
        name="memory-hierarchy-stm",
    ),
    path(
        "memory-hierarchy/stm-rows/<uuid:stm_id>/rescope/",
        stm_apis.AdminStmRescopeApi.as_view(),
        name="memory-hierarchy-stm-rescope",
    ),
    path(
        "memory-hierarchy/ltm/<str:entity_id>/",
        operator_apis.AdminLtmApi.as_view(),
        name="memory-hierarchy-ltm",
    ),
]

# Mounted under /api/v1/members/ beside memory's service endpoints.
members_api_urlpatterns = [
    path(
        "<uuid:member_id>/short-term/",
        stm_apis.ShortTermListCreateApi.as_view(),
        name="short-term",
    ),
    path(
        "<uuid:member_id>/short-term/<uuid:stm_id>/refresh/",
        stm_apis.ShortTermRefreshApi.as_view(),
        name="short-term-refresh",
    ),
    path(
        "<uuid:member_id>/short-term/<uuid:stm_id>/consolidate/",
        stm_apis.ShortTermConsolidateApi.as_view(),
        name="short-term-consolidate",
    ),
    path(
        "<uuid:member_id>/context-bundle/",
        stm_apis.ContextBundleApi.as_view(),
        name="context-bundle",
    ),
    path(
        "<uuid:member_id>/questions/",
        question_apis.MemberOpenQuestionsApi.as_view(),
        name="member-questions",
    ),
]

# Mounted at /dashboard/admin/.
dashboard_urlpatterns = [
    path(
        "memory-hierarchy",
        views.memory_hierarchy_dashboard,
        name="memory-hierarchy-dashboard",
    ),
]
