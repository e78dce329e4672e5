from django.apps import AppConfig


class ContinuityConfig(AppConfig):
    name = "continuity"
