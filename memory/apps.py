from django.apps import AppConfig


class MemoryConfig(AppConfig):
    name = "memory"

    def ready(self) -> None:
        from memory import receivers  # noqa: F401 - connects the signal receivers
