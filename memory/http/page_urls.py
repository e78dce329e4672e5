from django.urls import path

from memory.http import conversation_pages as conversation_views
from memory.http import people as people_views
from memory.http import views

app_name = "memory"

urlpatterns = [
    path("", views.memory_index, name="index"),
    path("off-the-record/", views.memory_off_the_record_view, name="off-the-record"),
    path("opt-outs/", views.memory_opt_out_view, name="opt-out"),
    path("forget-category/", views.memory_forget_category_view, name="forget-category"),
    path("clear/", views.memory_clear_view, name="clear"),
    path("settings/", views.memory_settings_view, name="settings"),
    path("controls/", views.memory_controls_view, name="controls"),
    path("forget-selected/", views.memory_forget_selected_view, name="forget-selected"),
    path("consents/", views.consent_index, name="consents"),
    path("consents/<str:consent_type>/grant/", views.consent_grant_view, name="consent-grant"),
    path(
        "consents/<str:consent_type>/withdraw/",
        views.consent_withdraw_view,
        name="consent-withdraw",
    ),
    path("people/", people_views.people_index, name="people"),
    path("people/<uuid:entity_id>/", people_views.person_detail, name="person"),
    path("people/<uuid:entity_id>/forget/", people_views.person_forget, name="person-forget"),
    path("conversations/", conversation_views.conversation_index, name="conversations"),
    path(
        "conversations/<str:session_id>/forget/",
        conversation_views.conversation_forget,
        name="conversation-forget",
    ),
    path("notices/", views.notice_index, name="notices"),
    path("notices/<uuid:notice_id>/answer/", views.notice_answer_view, name="notice-answer"),
    path("<uuid:entry_id>/", views.memory_detail, name="detail"),
    path("<uuid:entry_id>/history/", views.memory_history, name="history"),
    path("<uuid:entry_id>/edit/", views.memory_edit_view, name="edit"),
    path("<uuid:entry_id>/pause/", views.memory_pause_view, name="pause"),
    path("<uuid:entry_id>/resume/", views.memory_resume_view, name="resume"),
    path("<uuid:entry_id>/forget/", views.memory_forget_view, name="forget"),
    path("<uuid:entry_id>/scope/", views.memory_scope_view, name="scope"),
]
