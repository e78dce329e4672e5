from django.apps import AppConfig


class MemoryConfig(AppConfig):
    name = "memory"

    def ready(self) -> None:
        from memory import receivers  # noqa: F401 - connects the signal receivers
        from memory.entities.services import entities_store_register
        from memory.forgetting.erasure import memory_stores_register
        from memory.forgetting.fingerprints import fingerprints_store_register

        memory_stores_register()
        fingerprints_store_register()
        entities_store_register()
