from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    """Change events delivered to the surfaces' webhooks, signed per the Standard Webhooks
    specification (`standardwebhooks`), at least once, in order per member."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "webhooks"
    verbose_name = "Webhooks"
