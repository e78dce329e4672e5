"""The continuity vocabulary: seed 001's surfaces and postures, and what a write did."""

from django.db import models


class Surface(models.TextChoices):
    """Surfaces that hand a place off between devices (seed 001, ContinuationToken)."""

    TARA = "tara", "Tara"
    PSYCHE = "psyche", "Psyche"
    LIVING_SCENE = "living-scene", "Living Scenes"
    NISABA = "nisaba", "Nisaba"
    METIS = "metis", "Metis"
    SHELL = "shell", "Shell"


class Posture(models.TextChoices):
    """What the member was doing at the anchor; richer than a free-text "paused at 4'"."""

    READING = "reading", "Reading"
    LISTENING = "listening", "Listening"
    CO_WATCHING = "co-watching", "Co-watching"
    PRACTICING = "practicing", "Practicing"
    STUDYING = "studying", "Studying"
    REVIEWING = "reviewing", "Reviewing"
    PAUSED = "paused", "Paused"


class WriteOutcome(models.TextChoices):
    """What a token write did to its slot (member + surface + scope key)."""

    CREATED = "created"  # the slot had no token yet
    REPLACED = "replaced"  # the write is now the slot's token (most recent by server time)
    SUPERSEDED = "superseded"  # the slot already holds a more recent write; this one lost


class NoticeKind(models.TextChoices):
    # The losing device's "this was also playing on your other device".
    ALSO_PLAYING_ELSEWHERE = (
        "also-playing-elsewhere",
        "This was also playing on your other device",
    )
