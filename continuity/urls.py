from django.urls import path

from continuity import apis

me_api_urlpatterns = [
    path(
        "continuation-tokens/",
        apis.MyContinuationTokenListApi.as_view(),
        name="continuation-tokens",
    ),
    path(
        "continuation-tokens/<uuid:pk>/resume/",
        apis.MyContinuationResumeApi.as_view(),
        name="continuation-token-resume",
    ),
]
service_api_urlpatterns = [
    path(
        "<uuid:member_id>/continuation-tokens/",
        apis.MemberContinuationTokenApi.as_view(),
        name="member-continuation-tokens",
    ),
    path(
        "<uuid:member_id>/continuation-tokens/<uuid:pk>/resume/",
        apis.MemberContinuationResumeApi.as_view(),
        name="member-continuation-token-resume",
    ),
]
