"""Who looked at a member's memory: a registry through which a higher layer tells
memory's member surfaces about operator access, without memory importing it.

The layer order (iris_site <- consent <- memory <- inspection ...) keeps memory from
importing inspection, yet the member's notices (`GET /api/v1/me/notices/`) and each
memory's "who looked" list must show inspections. So, like the content-store registry
(`memory.forgetting.stores`), inspection registers a `DisclosureSource` from its
`AppConfig.ready()`; memory asks every registered source and merges what they say.
A source returns plain, JSON-ready dicts with ids, roles, reasons and times, never
memory content or an operator's identity.
"""

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class DisclosureSource:
    # The notices API lists this source's notices under `<name>_notices`.
    name: str
    # member_id → the member's notices from this source, newest first: dicts with at least
    # `kind`, `id`, `summary` and `at` (ISO 8601).
    notices: Callable[..., list[dict]]
    # (member_id, entry_id) → accesses to that memory, newest first: dicts with `kind`,
    # `who` (a role or surface, in words), `at` (a datetime) and `why`.
    entry_accesses: Callable[..., list[dict]]


_SOURCES: dict[str, DisclosureSource] = {}


def disclosure_source_register(source: DisclosureSource) -> None:
    _SOURCES[source.name] = source


def disclosure_source_unregister(name: str) -> DisclosureSource | None:
    return _SOURCES.pop(name, None)


def registered_disclosure_sources() -> list[DisclosureSource]:
    return [_SOURCES[name] for name in sorted(_SOURCES)]
