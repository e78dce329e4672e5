from django.apps import AppConfig


class IrisSiteConfig(AppConfig):
    name = "iris_site"
    verbose_name = "Identity"

    def ready(self) -> None:
        from iris_site.telemetry import telemetry_setup_from_environment

        telemetry_setup_from_environment()
