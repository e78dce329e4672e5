from django.apps import AppConfig


class IrisSiteConfig(AppConfig):
    name = "iris_site"
    verbose_name = "Identity"
