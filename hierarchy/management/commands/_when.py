from datetime import datetime

from django.core.management.base import CommandError
from django.utils import timezone


def parse_when(value: str | None, option: str = "--now") -> datetime:
    """An ISO 8601 time with a zone, or the current time when not given."""
    if not value:
        return timezone.now()
    try:
        moment = datetime.fromisoformat(value)
    except ValueError as error:
        raise CommandError(f"{option}: {error}") from error
    if timezone.is_naive(moment):
        raise CommandError(f"{option} needs a time zone, e.g. 2026-05-01T00:00:00Z")
    return moment
