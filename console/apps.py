from django.apps import AppConfig


class ConsoleConfig(AppConfig):
    """The operators' console: server-rendered pages over the other apps' services."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "console"
    verbose_name = "Operator console"
