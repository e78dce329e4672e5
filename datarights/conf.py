"""Data-rights settings, each with a default so the app needs no settings edit.

- `IRIS_DSAR_EXPORT_DIR`: where export bundles are written (default `<BASE_DIR>/var/dsar-exports`).
- `IRIS_DSAR_TIME_ZONE`: the zone statutory deadlines are counted in (default `TIME_ZONE`).
"""

from pathlib import Path
from zoneinfo import ZoneInfo

from django.conf import settings


def export_root() -> Path:
    configured = getattr(settings, "IRIS_DSAR_EXPORT_DIR", None)
    return Path(configured) if configured else Path(settings.BASE_DIR) / "var" / "dsar-exports"


def deadline_zone() -> ZoneInfo:
    return ZoneInfo(getattr(settings, "IRIS_DSAR_TIME_ZONE", None) or settings.TIME_ZONE)


def hash_secret() -> bytes:
    return settings.IRIS_HASH_SECRET.encode()


def server_secret() -> str:
    return settings.SECRET_KEY
