from django.urls import path

from datarights import apis, views

me_api_urlpatterns = [
    path("data-rights/", apis.DataRightsListCreateApi.as_view(), name="datarights-list"),
    path("data-rights/<uuid:pk>/", apis.DataRightsReceiptApi.as_view(), name="datarights-receipt"),
    path(
        "data-rights/<uuid:pk>/verify/",
        apis.DataRightsVerifyApi.as_view(),
        name="datarights-verify",
    ),
    path(
        "data-rights/<uuid:pk>/cancel/",
        apis.DataRightsCancelApi.as_view(),
        name="datarights-cancel",
    ),
    path(
        "data-rights/<uuid:pk>/appeal/",
        apis.DataRightsAppealApi.as_view(),
        name="datarights-appeal",
    ),
    path(
        "data-rights/<uuid:pk>/download/",
        apis.DataRightsDownloadApi.as_view(),
        name="datarights-download",
    ),
]

operator_api_urlpatterns = [
    path("data-rights/", apis.OperatorQueueApi.as_view(), name="datarights-queue"),
    path("data-rights/<uuid:pk>/", apis.OperatorQueueItemApi.as_view(), name="datarights-item"),
    path(
        "data-rights/<uuid:pk>/transition/",
        apis.OperatorTransitionApi.as_view(),
        name="datarights-transition",
    ),
    path(
        "data-rights/<uuid:pk>/extend/", apis.OperatorExtendApi.as_view(), name="datarights-extend"
    ),
]

# The "Your data" pages, included at /profile/memory/data/ with namespace "datarights":
# an overview, then one page per right (GET shows it, POST asks for it).
page_urlpatterns = [
    path("", views.data_index, name="index"),
    path("export/", views.data_export_view, name="export"),
    path("delete/", views.data_delete_view, name="delete"),
    path("access/", views.data_access_view, name="access"),
    path("<uuid:request_id>/verify/", views.data_verify_view, name="verify"),
    path("<uuid:request_id>/cancel/", views.data_cancel_view, name="cancel"),
    path("<uuid:request_id>/appeal/", views.data_appeal_view, name="appeal"),
    path("<uuid:request_id>/download/", views.data_download_view, name="download"),
    path("<uuid:request_id>/status/", views.data_status_view, name="status"),
]
