from django.apps import AppConfig


class IrisSiteConfig(AppConfig):
    name = "iris_site"
    verbose_name = "Identity"

    def ready(self) -> None:
        # Registers the recorder `createsuperuser`'s accounts go through (audited).
        import iris_site.operators
        import iris_site.statement_timeout  # noqa: F401 - connects the ceiling's receiver
        from iris_site.telemetry import telemetry_setup_from_environment

        telemetry_setup_from_environment()
