from django.apps import AppConfig


class ContinuityConfig(AppConfig):
    name = "continuity"

    def ready(self) -> None:
        from continuity import receivers  # noqa: F401 - connects the signal receivers
