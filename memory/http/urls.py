from django.urls import path

from memory.http import apis, changes, controls, opt_outs, surfaces
from memory.http import conversations as conversation_apis
from memory.http import entities as entity_apis
from memory.http import notebooks as notebook_apis
from memory.http import scopes as policy_apis

me_api_urlpatterns = [
    path("memories/", apis.MemoryListCreateApi.as_view(), name="memory-list"),
    path(
        "memories/forget-category/",
        apis.MemoryForgetCategoryApi.as_view(),
        name="memory-forget-category",
    ),
    path("memories/clear/", apis.MemoryClearApi.as_view(), name="memory-clear"),
    path(
        "memories/forget/",
        controls.MemoryForgetSelectedApi.as_view(),
        name="memory-forget-selected",
    ),
    path("memories/<uuid:pk>/", apis.MemoryDetailApi.as_view(), name="memory-detail"),
    path(
        "memories/<uuid:pk>/preview/",
        apis.MemoryEditPreviewApi.as_view(),
        name="memory-edit-preview",
    ),
    path(
        "memories/<uuid:pk>/revisions/",
        apis.MemoryRevisionListApi.as_view(),
        name="memory-revisions",
    ),
    path("memories/<uuid:pk>/forget/", apis.MemoryForgetApi.as_view(), name="memory-forget"),
    path("memories/<uuid:pk>/pause/", apis.MemoryPauseApi.as_view(), name="memory-pause"),
    path("memories/<uuid:pk>/resume/", apis.MemoryResumeApi.as_view(), name="memory-resume"),
    path("memories/<uuid:pk>/confirm/", apis.MemoryConfirmApi.as_view(), name="memory-confirm"),
    path("memories/<uuid:pk>/scope/", apis.MemoryScopeChangeApi.as_view(), name="memory-scope"),
    path(
        "actors/<str:actor_handle>/forget/",
        apis.MemoryForgetActorApi.as_view(),
        name="memory-forget-actor",
    ),
    path("entities/", entity_apis.MemberEntityListApi.as_view(), name="member-entities"),
    path(
        "entities/<uuid:pk>/",
        entity_apis.MemberEntityDetailApi.as_view(),
        name="member-entity-detail",
    ),
    path(
        "entities/<uuid:pk>/retire/",
        entity_apis.MemberEntityRetireApi.as_view(),
        name="member-entity-retire",
    ),
    path(
        "conversations/",
        conversation_apis.MyConversationListApi.as_view(),
        name="member-conversations",
    ),
    path(
        "conversations/<str:session_id>/forget/",
        conversation_apis.MyConversationForgetApi.as_view(),
        name="member-conversation-forget",
    ),
    path("notebooks/", notebook_apis.MyNotebookListApi.as_view(), name="member-notebooks"),
    path(
        "notebooks/<str:notebook_id>/",
        notebook_apis.MyNotebookDetailApi.as_view(),
        name="member-notebook-detail",
    ),
    path(
        "notebooks/<str:notebook_id>/close/",
        notebook_apis.MyNotebookCloseApi.as_view(),
        name="member-notebook-close",
    ),
    path("off-the-record/", apis.OffTheRecordApi.as_view(), name="off-the-record"),
    path("memory-settings/", controls.MemorySettingsApi.as_view(), name="memory-settings"),
    path("opt-outs/", opt_outs.OptOutListCreateApi.as_view(), name="opt-outs"),
    path("scope-policies/", policy_apis.MyScopePolicyListApi.as_view(), name="scope-policies"),
    path("notices/", apis.MemoryNoticeListApi.as_view(), name="memory-notices"),
    path(
        "notices/<uuid:pk>/answer/",
        apis.MemoryNoticeAnswerApi.as_view(),
        name="memory-notice-answer",
    ),
]

service_api_urlpatterns = [
    path(
        "<uuid:member_id>/memories/",
        surfaces.MemberMemoryRememberApi.as_view(),
        name="memory-remember",
    ),
    path(
        "<uuid:member_id>/sessions/<str:session_id>/turns/",
        surfaces.ConversationTurnAppendApi.as_view(),
        name="conversation-turns",
    ),
    path(
        "<uuid:member_id>/notebooks/<str:notebook_id>/",
        notebook_apis.MemberNotebookDetailApi.as_view(),
        name="surface-notebook-detail",
    ),
    path(
        "<uuid:member_id>/notebooks/<str:notebook_id>/close/",
        notebook_apis.MemberNotebookCloseApi.as_view(),
        name="surface-notebook-close",
    ),
    path(
        "<uuid:member_id>/scope-policies/",
        policy_apis.MemberScopePolicyListApi.as_view(),
        name="member-scope-policies",
    ),
]

events_api_urlpatterns = [
    path("", changes.ChangeFeedApi.as_view(), name="change-feed"),
    path("ack/", changes.ChangeFeedAckApi.as_view(), name="change-feed-ack"),
]
