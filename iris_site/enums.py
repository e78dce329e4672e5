"""Identity vocabularies: who can act in Iris."""

from django.db import models


class UserKind(models.TextChoices):
    MEMBER = "member", "Member"  # a person using the assistant; owns their memory
    OPERATOR = "operator", "Operator"  # staff; reads memory only via a granted inspection


class OperatorRole(models.TextChoices):
    SUPPORT = "support", "Support"
    ADMIN = "admin", "Admin"
    TRUST_AND_SAFETY = "t&s", "Trust & Safety"
    LEGAL = "legal", "Legal"


class AccountChangeKind(models.TextChoices):
    CREATED = "created", "Account created"
    ROLE = "role", "Role changed"
    TENANT = "tenant", "Tenant binding changed"
    DEACTIVATED = "deactivated", "Account deactivated"
    REACTIVATED = "reactivated", "Account reactivated"


class AccountChangeState(models.TextChoices):
    PENDING = "pending", "Waiting for a second admin"
    APPLIED = "applied", "Applied"
    REFUSED = "refused", "Refused"


class Consumer(models.TextChoices):
    """Assistant surfaces that call Iris with a service token bound to one name."""

    ASSISTANT = "assistant", "Assistant"
    SHELL = "shell", "Shell"
    NOTEBOOK = "notebook", "Notebook"
    TARA = "tara", "Tara"
    VERITAS = "veritas", "Veritas"
    NYX = "nyx", "Nyx"
    ARETE = "arete", "Arete"
    NISABA = "nisaba", "Nisaba"
    METIS = "metis", "Metis"
    STUDIO = "studio", "Studio"
    PSYCHE = "psyche", "Psyche"
    LIVING_SCENE = "living-scene", "Living Scene"
