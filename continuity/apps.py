from django.apps import AppConfig


class ContinuityConfig(AppConfig):
    name = "continuity"

    def ready(self) -> None:
        from continuity import receivers  # noqa: F401 - connects the signal receivers
        from continuity.stores import CONTINUATION_TOKENS_STORE
        from memory.forgetting.stores import content_store_register

        content_store_register(CONTINUATION_TOKENS_STORE)
