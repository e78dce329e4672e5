"""Per-scope TTLs and caps for the short-term tier, read from a YAML file.

The file is `hierarchy/stm_caps.yaml` unless the `IRIS_STM_CAPS_FILE` setting names
another. It is parsed once per path and validated strictly: a missing scope kind, an
unknown key or a non-positive number refuses to start rather than running uncapped.
"""

from dataclasses import dataclass
from functools import cache
from pathlib import Path

import yaml
from django.conf import settings

from hierarchy.enums import StmScopeKind

DEFAULT_CAPS_FILE = Path(__file__).resolve().parent / "stm_caps.yaml"
# The seed's defaults; the YAML must agree unless an operator deliberately overrides them.
SEED_DEFAULT_TTLS = {
    StmScopeKind.RESEARCH_TASK: 3600,
    StmScopeKind.AGENT_RUN: 600,
    StmScopeKind.USER_SESSION: 900,
    StmScopeKind.ADMIN_SESSION: 1800,
}


class CapsConfigError(ValueError):
    """The caps file is missing a scope, has an unknown key or a bad number."""


@dataclass(frozen=True, slots=True)
class ScopeCaps:
    ttl_seconds: int
    max_ttl_seconds: int
    max_lifetime_seconds: int
    max_rows_per_scope: int
    max_content_chars: int


_FIELDS = tuple(ScopeCaps.__dataclass_fields__)


def parse_caps(document: object) -> dict[str, ScopeCaps]:
    if not isinstance(document, dict):
        raise CapsConfigError("the caps file must map scope kinds to settings")
    unknown = set(document) - set(StmScopeKind.values)
    missing = set(StmScopeKind.values) - set(document)
    if unknown or missing:
        raise CapsConfigError(f"scope kinds: unknown {sorted(unknown)}, missing {sorted(missing)}")
    caps = {}
    for kind, values in document.items():
        if not isinstance(values, dict) or set(values) != set(_FIELDS):
            raise CapsConfigError(f"{kind}: give exactly {', '.join(_FIELDS)}")
        for name, value in values.items():
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise CapsConfigError(f"{kind}.{name} must be a positive integer")
        scope = ScopeCaps(**values)
        if not scope.ttl_seconds <= scope.max_ttl_seconds <= scope.max_lifetime_seconds:
            raise CapsConfigError(
                f"{kind}: need ttl_seconds <= max_ttl_seconds <= max_lifetime_seconds"
            )
        caps[kind] = scope
    return caps


@cache
def _load(path: str) -> dict[str, ScopeCaps]:
    with open(path, encoding="utf-8") as handle:
        return parse_caps(yaml.safe_load(handle))


def stm_caps() -> dict[str, ScopeCaps]:
    return _load(str(getattr(settings, "IRIS_STM_CAPS_FILE", None) or DEFAULT_CAPS_FILE))


def caps_for(scope_kind: str) -> ScopeCaps:
    return stm_caps()[scope_kind]
