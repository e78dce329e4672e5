from django.apps import AppConfig


class MemoryConfig(AppConfig):
    name = "memory"

    def ready(self) -> None:
        from memory import receivers  # noqa: F401 - connects the signal receivers
        from memory.entities import entities_store_register
        from memory.erasure import memory_stores_register
        from memory.fingerprints import fingerprints_store_register

        memory_stores_register()
        fingerprints_store_register()
        entities_store_register()
