from django.apps import AppConfig


class MemoryConfig(AppConfig):
    name = "memory"

    def ready(self) -> None:
        from iris_site.auth import principal_relation_register
        from memory import receivers  # noqa: F401 - connects the signal receivers
        from memory.entities.services import entities_store_register
        from memory.forgetting.erasure import memory_stores_register
        from memory.forgetting.fingerprints import fingerprints_store_register

        # A surface's capabilities are read on every request it makes: with its token.
        principal_relation_register("service_client__capabilities")

        memory_stores_register()
        fingerprints_store_register()
        entities_store_register()
