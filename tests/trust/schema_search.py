"""A schema-wide search for forgotten material: every text and JSON column of every model
of the project and of the installed apps that can hold a member's words (the audit
chain, the task queue, idempotency records included), every file the app wrote (export
bundles, audit checkpoints, whatever lands under `var/`) and the process's caches.

Reusable by any forgetting test: `Forgotten(texts)` says what must not be found;
`schema_hits`, `file_hits` and `cache_hits` say where it still is (empty: nowhere).

How a text is matched (the rule of `memory.forgetting.stores.ResidueMatcher`, written
again here so the search does not trust the code it checks): case folded and whitespace
collapsed; a text of 16 characters or more is found as a substring, a shorter one only
as a whole field (a column's value, one string inside a JSON document). Give each
generated text a unique marker token, so a hit is never a common word.

Content encrypted at rest is decrypted before it is searched: any value that is a
Fernet token under the server's content key (`iris_site.crypto.decrypt`: sensitive
short-term rows, entity labels) or a data-rights sealed work state
(`datarights.crypto.unseal`) is searched as its plaintext too. Export zips are searched
member by member; an export sealed at rest under the member's key is decrypted with it
first (a passphrase-encrypted one cannot be read by anyone but the member, and is out
of reach of this search).
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import NamedTuple

from django.apps import apps
from django.conf import settings
from django.db import models

MIN_SUBSTRING_LENGTH = 16
TEXT_FIELDS = (models.CharField, models.TextField, models.JSONField)
FERNET_PREFIX = "gAAAAA"

# Tables that cannot hold a member's words: Django's own bookkeeping (content types,
# permissions, groups), the signed-cookie sessions, the admin's static files. Everything
# else is searched, third-party tables that store arguments or payloads included
# (django_tasks_db's queue, crontask, axes' access log, the admin log).
SKIPPED_APP_LABELS = frozenset({"contenttypes", "sessions", "staticfiles"})
SKIPPED_MODELS = frozenset({"auth.permission", "auth.group"})


def normalise(text: str) -> str:
    return " ".join(text.split()).casefold()


class Forgotten:
    """The texts that must be found nowhere."""

    def __init__(self, texts: Iterable[str]) -> None:
        folded = {normalise(t) for t in texts if t and t.strip()}
        self.long = sorted(t for t in folded if len(t) >= MIN_SUBSTRING_LENGTH)
        self.short = frozenset(t for t in folded if len(t) < MIN_SUBSTRING_LENGTH)

    def __bool__(self) -> bool:
        return bool(self.long or self.short)

    def in_field(self, value: str) -> list[str]:
        """The forgotten texts a field's value holds (whole field or substring)."""
        folded = normalise(value)
        found = [t for t in self.long if t in folded]
        if folded in self.short:
            found.append(folded)
        return found

    def in_blob(self, value: str) -> list[str]:
        """The forgotten texts a document holds: long ones anywhere, short ones as a whole
        JSON string or a whole line."""
        folded = normalise(value)
        found = [t for t in self.long if t in folded]
        lines = {normalise(line) for line in value.splitlines()}
        found += [t for t in self.short if f'"{t}"' in folded or t in lines]
        return found


# --- Reading values as a reader would ---------------------------------------------------


def _decrypted(value: str) -> str | None:
    """The plaintext of a value encrypted at rest by Iris, or None."""
    if not value.startswith(FERNET_PREFIX):
        return None
    from iris_site.crypto import ContentUnreadable, decrypt

    try:
        return decrypt(value)
    except ContentUnreadable:
        pass
    try:
        from datarights import conf
        from datarights.crypto import unseal

        return json.dumps(unseal(value, server_secret=conf.server_secret()), ensure_ascii=False)
    except Exception:  # not a sealed state either: searched as stored
        return None


def _strings(value) -> Iterator[str]:
    """Every string inside a JSON value (keys and leaves)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


def _field_views(value) -> Iterator[tuple[str, bool]]:
    """(text, whole_field) views of a column value: the value itself, each string of a
    JSON document, the document serialized, and the plaintext of any encrypted string."""
    if value is None:
        return
    if isinstance(value, str):
        strings = [value]
    else:
        strings = list(_strings(value))
        yield json.dumps(value, ensure_ascii=False, default=str), False
    for text in strings:
        yield text, True
        plain = _decrypted(text)
        if plain is not None:
            yield plain, True


def searched_models() -> list[type[models.Model]]:
    found = []
    for model in apps.get_models(include_auto_created=True):
        meta = model._meta
        if meta.app_label in SKIPPED_APP_LABELS or meta.label_lower in SKIPPED_MODELS:
            continue
        if meta.proxy:
            continue
        found.append(model)
    return found


class Hit(NamedTuple):
    """Where a forgotten text (normalised) was found."""

    place: str
    text: str

    def __str__(self) -> str:
        return f"{self.place}: {self.text!r}"


def schema_hits(forgotten: Forgotten) -> list[Hit]:
    """(`table.column pk=…`, text) for every value holding a forgotten text."""
    if not forgotten:
        return []
    hits = []
    for model in searched_models():
        fields = [f for f in model._meta.concrete_fields if isinstance(f, TEXT_FIELDS)]
        if not fields:
            continue
        names = [f.attname for f in fields]
        rows = model._base_manager.all().values_list(model._meta.pk.attname, *names)
        for pk, *values in rows.iterator():
            for field, value in zip(fields, values, strict=True):
                for text, whole in _field_views(value):
                    found = forgotten.in_field(text) if whole else forgotten.in_blob(text)
                    place = f"{model._meta.db_table}.{field.column} pk={pk}"
                    hits += [Hit(place, t) for t in found]
    return sorted(set(hits))


# --- Files and caches ----------------------------------------------------------------------


def written_roots() -> list[Path]:
    """Every folder the app writes files to: export bundles, audit checkpoints and their
    signing key's folder, and `var/` (logs, spools, whatever `make run` keeps there)."""
    from datarights.conf import export_root

    roots = [export_root(), Path(settings.AUDIT_CHECKPOINT_PATH).parent]
    roots.append(Path(settings.BASE_DIR) / "var")
    unique: list[Path] = []
    for root in roots:
        if root not in unique:
            unique.append(root)
    return unique


def _file_texts(path: Path) -> Iterator[str]:
    """The file's text as a reader holding the keys would see it: an export sealed under
    the member's key is decrypted with it first (`datarights.crypto.decrypt_member_lines`,
    as the download does); a zip is read member by member. A sealed export whose key was
    shredded opens to nothing, and is searched as stored."""
    from datarights.crypto import DecryptionFailed, decrypt_member_lines, is_member_sealed

    with open(path, "rb") as handle:
        head = handle.read(64)
    if is_member_sealed(head):
        try:
            with open(path, "rb") as handle:
                plain = b"".join(decrypt_member_lines(handle))
        except DecryptionFailed:
            plain = None
        if plain is not None:
            with zipfile.ZipFile(io.BytesIO(plain)) as archive:
                for name in archive.namelist():
                    yield archive.read(name).decode("utf-8", errors="replace")
            return
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as archive:
            for name in archive.namelist():
                yield archive.read(name).decode("utf-8", errors="replace")
        return
    data = path.read_bytes()
    yield data.decode("utf-8", errors="replace")


def file_hits(
    forgotten: Forgotten, roots: Iterable[Path] | None = None, *, since=None
) -> list[Hit]:
    """(path, text) for every file under `roots` (default: `written_roots()`) holding a
    forgotten text; `since` (a POSIX time): only files modified from then on."""
    if not forgotten:
        return []
    hits = []
    for root in written_roots() if roots is None else roots:
        if not root.exists():
            continue
        for path in root.rglob("*"):
            if not path.is_file() or (since is not None and path.stat().st_mtime < since):
                continue
            for text in _file_texts(path):
                hits += [Hit(str(path), t) for t in forgotten.in_blob(text)]
    return sorted(set(hits))


def cache_hits(forgotten: Forgotten) -> list[Hit]:
    """Values of an in-process cache (`LocMemCache`: the tests' cache) holding a forgotten
    text, searched in their pickled bytes (a pickled string is its UTF-8 bytes); a shared
    cache (Redis) is not searched."""
    from django.core.cache import caches

    hits = []
    for cache in caches.all(initialized_only=True):
        store = getattr(cache, "_cache", None)
        if not isinstance(store, dict):
            continue
        for key, raw in list(store.items()):
            text = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else str(raw)
            hits += [Hit(f"cache {key}", t) for t in forgotten.in_blob(text)]
    return sorted(set(hits))


def hits_anywhere(forgotten: Forgotten, *, since=None) -> list[Hit]:
    """Every place (column, file, cache entry) still holding a forgotten text."""
    return schema_hits(forgotten) + file_hits(forgotten, since=since) + cache_hits(forgotten)


def texts_found(forgotten: Forgotten, *, since=None) -> set[str]:
    """The forgotten texts (normalised) found anywhere: a search that cannot see a text
    before it is forgotten proves nothing by not seeing it after."""
    return {hit.text for hit in hits_anywhere(forgotten, since=since)}
