from django.db import models


class Severity(models.TextChoices):
    INFO = "info", "Info"
    WARNING = "warning", "Warning"  # something was refused or suppressed
    CRITICAL = "critical", "Critical"  # integrity or safety: a human should look


class ActorType(models.TextChoices):
    MEMBER = "member", "Member"
    OPERATOR = "operator", "Operator"
    SERVICE = "service", "Service client"
    SYSTEM = "system", "System"  # jobs and management commands
