from django.urls import path

from inspection import apis

operator_api_urlpatterns = [
    path("inspections/", apis.InspectionListCreateApi.as_view(), name="inspection-list"),
    path("inspections/<uuid:pk>/", apis.InspectionDetailApi.as_view(), name="inspection-detail"),
    path(
        "inspections/<uuid:pk>/transition/",
        apis.InspectionTransitionApi.as_view(),
        name="inspection-transition",
    ),
    path(
        "inspections/<uuid:pk>/snapshot/",
        apis.InspectionSnapshotApi.as_view(),
        name="inspection-snapshot",
    ),
    path(
        "inspections/<uuid:pk>/replay/",
        apis.InspectionReplayApi.as_view(),
        name="inspection-replay",
    ),
    path(
        "inspections/<uuid:pk>/copilot-notes/",
        apis.InspectionCopilotNoteCreateApi.as_view(),
        name="inspection-copilot-notes",
    ),
]

me_api_urlpatterns = [
    path(
        "inspection-notices/",
        apis.MemberInspectionNoticeListApi.as_view(),
        name="inspection-notices",
    ),
]
