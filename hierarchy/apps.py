from django.apps import AppConfig


class HierarchyConfig(AppConfig):
    name = "hierarchy"
    verbose_name = "Memory hierarchy"

    def ready(self) -> None:
        # The episodic tier (events, models, policy, selectors) never imports memory; the
        # receivers belong to the upper part of the app and may.
        from hierarchy import receivers  # noqa: F401 - connects the signal receivers
        from hierarchy.dsar_store import BUNDLE_CACHE_STORE, SHORT_TERM_STORE
        from memory.forgetting.stores import content_store_register

        content_store_register(SHORT_TERM_STORE)
        content_store_register(BUNDLE_CACHE_STORE)
