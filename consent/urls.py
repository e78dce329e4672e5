from django.urls import path

from consent import apis

me_api_urlpatterns = [
    path("consents/", apis.ActiveConsentListApi.as_view(), name="consent-active"),
    path("consents/events/", apis.ConsentEventListCreateApi.as_view(), name="consent-events"),
    path("consents/events/<uuid:pk>/", apis.ConsentEventDetailApi.as_view(), name="consent-event"),
    path("consents/verify/", apis.ConsentLedgerVerifyApi.as_view(), name="consent-verify"),
]
