"""Mounted at /console/. Each part of the console keeps its own routes here."""

from django.urls import path

from console import datarights, home, inspections, operators, reviews, webhooks
from hierarchy.views import memory_hierarchy_dashboard

app_name = "console"

urlpatterns = [
    path("", home.console_home, name="home"),
    path("dashboard/", memory_hierarchy_dashboard, name="dashboard"),
    path("inspections/", inspections.inspection_list_view, name="inspections"),
    path("inspections/new/", inspections.inspection_new_view, name="inspection-new"),
    path(
        "inspections/<uuid:pk>/",
        inspections.inspection_detail_view,
        name="inspection-detail",
    ),
    path("inspections/<uuid:pk>/read/", inspections.inspection_read_view, name="inspection-read"),
    path("inspections/<uuid:pk>/note/", inspections.inspection_note_view, name="inspection-note"),
    path(
        "inspections/<uuid:pk>/<str:step>/",
        inspections.inspection_transition_view,
        name="inspection-transition",
    ),
    path("data-rights/", datarights.queue, name="datarights"),
    path("data-rights/<uuid:pk>/", datarights.detail, name="datarights-detail"),
    path("data-rights/<uuid:pk>/extend/", datarights.extend, name="datarights-extend"),
    path("data-rights/<uuid:pk>/transition/", datarights.transition, name="datarights-transition"),
    path("data-rights/<uuid:pk>/fail/", datarights.fail, name="datarights-fail"),
    path("reviews/", reviews.reviews_index, name="reviews"),
    path("reviews/reconfirm/", reviews.reconfirm_index, name="reviews-reconfirm"),
    path("reviews/<uuid:review_id>/decide/", reviews.review_decide, name="reviews-decide"),
    path("reviews/<uuid:review_id>/delete/", reviews.review_delete_confirm, name="reviews-delete"),
    path("operators/", operators.operator_list, name="operators"),
    path("operators/role/", operators.operator_role_request, name="operators-role"),
    path(
        "operators/changes/<uuid:pk>/<str:decision>/",
        operators.operator_change_decision,
        name="operators-decide",
    ),
    path("webhooks/", webhooks.webhook_list, name="webhooks"),
    path(
        "webhooks/clients/<uuid:client_id>/url/",
        webhooks.webhook_url_set,
        name="webhooks-url",
    ),
    path("webhooks/<uuid:pk>/rotate/", webhooks.webhook_rotate, name="webhooks-rotate"),
    path("webhooks/<uuid:pk>/disable/", webhooks.webhook_disable, name="webhooks-disable"),
    path("webhooks/<uuid:pk>/retry/", webhooks.webhook_retry, name="webhooks-retry"),
]
