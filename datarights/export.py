"""The export bundle: a zip of `data.json`, a machine-readable JSON document of
everything Iris holds on the member in the requested scopes; `summary.html`, the same
for a person to read offline (`datarights.summary`); and `README.txt`. Everything is
written as a stream so its size never sits in memory.

Entries are read a page at a time by id (keyset pagination) with their revisions, and
written one per line; the SHA-256 of the whole zip (all three members) is computed as
it is written (the request's `result_fingerprint`). The zip is deterministic (fixed
member order and timestamps), so a resumed job writes the same zip. No export is
written to disk in the clear: the zip's bytes go through the framed Fernet writer of
`datarights.crypto` on their way to disk, under the member's passphrase when they gave
one (`{request}.zip.enc`, downloaded as it is), else under a key derived from the
member's data key (`{request}.zip.sealed`, decrypted while the member downloads it, and
unreadable once their keys are shredded). Decrypted, the file is the zip the fingerprint
names. Plain zips written before files were sealed (`{request}.zip`, starting with
`PK\x03\x04`) are still read and served until their download window ends.

A forgotten memory appears as its id, its times and `forgotten`, never its text; every
entry's consent records show the ledger as it stands (a withdrawn consent says when).

Third-party data stays out: operator ids (operator-copilot scopes, revision actors) are
reduced to "operator"; mentions of other people are the member's own masked handles and
relationship notes.
"""

import hashlib
import json
import os
import tempfile
import zipfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any, BinaryIO

from consent.policy import is_in_force
from consent.selectors import consent_event_list, consent_states, opt_out_event_list
from datarights import conf
from datarights.contracts import ExportPayload
from datarights.policy import art15_information
from iris_site.audit.checkpoint import audit_member_chain, audit_member_proof
from iris_site.audit.events import iso
from iris_site.keys.envelope import unreadable
from memory.controls import member_memory_settings_get
from memory.entities.selectors import entities_export
from memory.enums import Lifecycle, MemoryCategory, ScopeKind
from memory.forgetting.dsar import (
    memory_export_entry_page,
    memory_export_revisions,
    memory_off_the_record_states,
    memory_turn_page,
)
from memory.forgetting.stores import short_term_memory_export
from memory.policy.retention import retention_envelope_for_kind
from memory.selectors import (
    ConsentLedgerView,
    consent_ledger_view,
    multi_actor_of,
    scope_of,
    suppression_of,
)

FORMAT = "iris-dsar-export"
VERSION = 1
PAGE = 500
# The zip's members, in the order they are written.
DATA_NAME = "data.json"
SUMMARY_NAME = "summary.html"
README_NAME = "README.txt"
ZIP_MEMBERS = (DATA_NAME, SUMMARY_NAME, README_NAME)


# Export files hold member data: only the server's own user may read them, whatever the
# process umask (0600 files in 0700 directories).
FILE_MODE = 0o600
DIR_MODE = 0o700
_PRIVATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)


def member_dir(member_id) -> Path:
    return conf.export_root() / str(member_id)


def _private_dir(member_id) -> Path:
    """The member's export directory, created (with the export root) 0700."""
    root = conf.export_root()
    directory = member_dir(member_id)
    directory.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
    # `mkdir` applies the umask and leaves existing directories as they were.
    for path in (root, directory):
        os.chmod(path, DIR_MODE)
    return directory


def artifact_path(request) -> Path | None:
    if not request.artifact_name:
        return None
    return member_dir(request.member_id) / request.artifact_name


def _dumps(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def _time(value: datetime | None) -> str | None:
    return iso(value) if value else None


class HashingSink:
    """Writes bytes onward and keeps the SHA-256 and size of everything written."""

    def __init__(self, out: BinaryIO) -> None:
        self._out = out
        self._hash = hashlib.sha256()
        self.size = 0

    def write(self, data: bytes) -> int:
        self._hash.update(data)
        self._out.write(data)
        self.size += len(data)
        return len(data)

    def flush(self) -> None:
        flush = getattr(self._out, "flush", None)
        if flush is not None:
            flush()

    def hexdigest(self) -> str:
        return self._hash.hexdigest()


def _without_operator(scope: dict) -> dict:
    return {k: v for k, v in scope.items() if k != "operator_id"}


def _revision(revision) -> dict:
    content = dict(revision.content or {})
    if isinstance(content.get("scope"), dict):
        content["scope"] = _without_operator(content["scope"])
    actor = revision.actor
    return {
        "id": str(revision.pk),
        "number": revision.number,
        "previous_revision_id": str(revision.previous_revision_id)
        if revision.previous_revision_id
        else None,
        "action": revision.action,
        "actor": "operator" if actor.startswith("operator:") else actor,
        "changed_fields": list(revision.changed_fields or []),
        # A content that cannot be opened (altered, or its key gone) is said to be
        # unavailable, never handed over as an empty revision.
        "content": None if unreadable(revision.content) else content,
        **({"unavailable": True} if unreadable(revision.content) else {}),
        "created_at": _time(revision.created_at),
    }


def _forgotten(entry, revisions: list, consents: ConsentLedgerView) -> dict:
    """A forgotten memory: that it existed and when it was forgotten, never its text."""
    return {
        "id": str(entry.pk),
        "lifecycle": entry.lifecycle,
        "forgotten": True,
        "consent": consents.records(entry.consent),
        "created_at": _time(entry.created_at),
        "forgotten_at": _time(entry.updated_at),
        "revisions": [
            {"id": str(r.pk), "number": r.number, "created_at": _time(r.created_at)}
            for r in revisions
        ],
    }


# An entry's sealed texts, and where the export puts each (the key inside its part).
_SEALED_TEXTS = {
    "subject": (None, "subject"),
    "body": (None, "body"),
    "suppression_notes": ("suppression", "notes"),
    "relationship_note": ("multi_actor", "relationship_note"),
}


def _entry(entry, revisions: list, consents: ConsentLedgerView) -> dict:
    if entry.lifecycle == Lifecycle.TOMBSTONED:
        return _forgotten(entry, revisions, consents)
    suppression = suppression_of(entry)
    multi_actor = multi_actor_of(entry)
    document = {
        "id": str(entry.pk),
        "revision_id": str(entry.revision_id) if entry.revision_id else None,
        "scope": _without_operator(scope_of(entry)),
        "category": entry.category,
        "subject": entry.subject or None,
        "body": entry.body,
        "origin": entry.origin,
        "lifecycle": entry.lifecycle,
        "confidence": entry.confidence,
        # When it was true, as the member said it ("since 2019"), apart from when Iris
        # learned it (`created_at`); null and "" when they said no time.
        "valid_from": _time(entry.valid_from),
        "valid_from_precision": entry.valid_from_precision,
        "valid_to": _time(entry.valid_to),
        "valid_to_precision": entry.valid_to_precision,
        "suppression": suppression.model_dump(mode="json") if suppression else None,
        "multi_actor": multi_actor.model_dump(mode="json") if multi_actor else None,
        "provenance_chain": entry.provenance_chain,
        "consent": consents.records(entry.consent),
        "expires_at": _time(entry.expires_at),
        "last_referenced_at": _time(entry.last_referenced_at),
        "reference_count": entry.reference_count,
        "created_at": _time(entry.created_at),
        "updated_at": _time(entry.updated_at),
        "revisions": [_revision(r) for r in revisions],
    }
    # A sealed text that cannot be opened (altered, or sealed under a key this
    # deployment no longer has) reads as empty: the export says it is unavailable
    # (null, and which fields) rather than hand over "" as what Iris holds.
    missing = [name for name in _SEALED_TEXTS if unreadable(getattr(entry, name))]
    for name in missing:
        part, key = _SEALED_TEXTS[name]
        holder = document if part is None else document[part]
        if holder is not None:
            holder[key] = None
    if missing:
        document["unavailable"] = True
        document["unavailable_fields"] = missing
    return document


def _write_array(write: Callable[[bytes], None], items: Iterable[dict]) -> int:
    write(b"[")
    count = 0
    for item in items:
        write((b",\n" if count else b"\n") + _dumps(item))
        count += 1
    write(b"\n]")
    return count


def _entries(member_id, kinds: list[str], now: datetime) -> Iterable[dict]:
    consents = consent_ledger_view(member_id=member_id, now=now)
    after = None
    while kinds:
        page = memory_export_entry_page(
            member_id=member_id, scope_kinds=kinds, after_id=after, limit=PAGE
        )
        if not page:
            return
        revisions: dict[str, list] = {}
        for revision in memory_export_revisions(
            member_id=member_id, entry_ids=[e.pk for e in page]
        ).select_related(None):
            revisions.setdefault(str(revision.entry_id), []).append(revision)
        for entry in page:
            yield _entry(entry, revisions.get(str(entry.pk), []), consents)
        after = page[-1].pk
        if len(page) < PAGE:
            return


def _turns(member_id) -> Iterable[dict]:
    after = None
    while True:
        page = memory_turn_page(member_id=member_id, after=after, limit=PAGE)
        for turn in page:
            yield {
                "id": str(turn.pk),
                "session_id": turn.session_id,
                "sequence": turn.sequence,
                "speaker": turn.speaker,
                "consumer": turn.consumer,
                "text": None if unreadable(turn.text) else turn.text,
                **({"unavailable": True} if unreadable(turn.text) else {}),
                "redacted_kinds": list(turn.redacted_kinds or []),
                "created_at": _time(turn.created_at),
            }
        if len(page) < PAGE:
            return
        after = (page[-1].session_id, page[-1].sequence)


def _consents(member_id) -> Iterable[dict]:
    for event in consent_event_list(member_id=member_id).order_by("sequence").iterator(PAGE):
        yield {**event.body(), "fingerprint": event.fingerprint, "hash": event.hash}


def _opt_outs(member_id, now: datetime) -> dict:
    states = consent_states(member_id=member_id)
    return {
        "consents_not_in_force": [
            {"consent_type": t, "status": s.status, "event_id": s.event_id}
            for t, s in sorted(states.items())
            if not is_in_force(s, now)
        ],
        "off_the_record": [
            {
                "session_id": o.session_id or None,
                "active": o.active,
                "changed_at": _time(o.changed_at),
            }
            for o in memory_off_the_record_states(member_id=member_id)
        ],
        # How the member set Iris to use their memory (stop using, auto-forget, paused
        # surfaces), as it stands at the export.
        "memory_settings": member_memory_settings_get(member_id=member_id).as_dict(),
        # The member's opt-out ledger, oldest first: what they turned off and back on.
        "opt_out_ledger": [
            {
                "event_id": str(e.pk),
                "category": e.category,
                "kind": e.kind,
                "occurred_at": _time(e.occurred_at),
            }
            for e in opt_out_event_list(member_id=member_id).order_by("sequence")
        ],
    }


def art15() -> dict:
    retention = {}
    for kind in ScopeKind.values:
        envelope = retention_envelope_for_kind(kind)
        retention[kind] = {
            "raw_days": envelope.raw_days,
            "summary_days": envelope.summary_days,
            "at_expiry": envelope.expiry_action,
        }
    return art15_information(categories=MemoryCategory.values, retention=retention)


def write_bundle(
    *, request_id, member_id, payload: ExportPayload, generated_at: datetime, out: BinaryIO
) -> tuple[str, int]:
    """Stream the JSON document (the zip's data.json) into `out`; returns (SHA-256 of
    the document, its size)."""
    sink = HashingSink(out)
    write = sink.write
    kinds = list(payload.scope_kinds)
    main = [k for k in kinds if k not in (ScopeKind.SCENE, ScopeKind.POSE)]
    head = {
        "format": FORMAT,
        "version": VERSION,
        "request_id": str(request_id),
        "member_id": str(member_id),
        "generated_at": iso(generated_at),
        "scopes": kinds,
        "art15": art15(),
    }
    write(_dumps(head)[:-1])  # the object stays open: the sections follow
    write(b',\n"entries":')
    _write_array(write, _entries(member_id, main, generated_at))
    if ScopeKind.SCENE in kinds:
        write(b',\n"scene_memory":{"entries":')
        _write_array(write, _entries(member_id, [ScopeKind.SCENE], generated_at))
        write(b"}")
    if ScopeKind.POSE in kinds:
        # Pose memory is aggregate alignment data; the marker tells a recipient so.
        write(b',\n"pose_memory":{"biometric_aggregate_only":true,"entries":')
        _write_array(write, _entries(member_id, [ScopeKind.POSE], generated_at))
        write(b"}")
    # Who and what those memories are about, and how they relate, as it held over time.
    write(b',\n"people_and_topics":')
    write(_dumps(entities_export(member_id=member_id, scope_kinds=kinds)))
    if payload.include_session_memory and ScopeKind.SESSION in kinds:
        write(b',\n"session_memory":{"conversation_turns":')
        _write_array(write, _turns(member_id))
        write(b',"short_term_memory":')
        _write_array(write, short_term_memory_export(member_id))
        write(b"}")
    if payload.include_consents:
        write(b',\n"consents":')
        _write_array(write, _consents(member_id))
    if payload.include_opt_outs:
        write(b',\n"opt_outs":' + _dumps(_opt_outs(member_id, generated_at)))
    # The member's audit chain, verifiable on their own: `python -m iris_site.audit.seal`.
    write(b',\n"audit_proof":' + _dumps(audit_member_proof(member_id)))
    write(b',\n"audit_chain":')
    _write_array(write, audit_member_chain(member_id))
    write(b"\n}\n")
    return sink.hexdigest(), sink.size


def _zip_info(name: str, generated_at: datetime) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=generated_at.utctimetuple()[:6])
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o600 << 16
    return info


def write_zip(
    *, request_id, member_id, payload: ExportPayload, generated_at: datetime, out: BinaryIO
) -> tuple[str, int]:
    """Stream the zip (data.json, summary.html, README.txt) into `out`; returns (SHA-256
    of the zip, its size). `out` need not be seekable (the encrypting writer is not)."""
    from datarights.summary import readme_text, write_summary

    sink = HashingSink(out)
    kinds = list(payload.scope_kinds)
    with zipfile.ZipFile(sink, "w") as archive:
        with archive.open(_zip_info(DATA_NAME, generated_at), "w", force_zip64=True) as member:
            write_bundle(
                request_id=request_id,
                member_id=member_id,
                payload=payload,
                generated_at=generated_at,
                out=member,
            )
        with archive.open(_zip_info(SUMMARY_NAME, generated_at), "w", force_zip64=True) as member:
            write_summary(
                member.write,
                member_id=member_id,
                kinds=kinds,
                entries_of=lambda ks: _entries(member_id, ks, generated_at),
                generated_at=generated_at,
            )
        archive.writestr(
            _zip_info(README_NAME, generated_at),
            readme_text(request_id=request_id, generated_at=generated_at),
        )
    return sink.hexdigest(), sink.size


# What an export file on disk is, by its first bytes.
ZIP_MAGIC = b"PK\x03\x04"
PLAIN_ZIP = "zip"  # written before exports were sealed at rest
MEMBER_SEALED = "member-sealed"  # under a key of the member's: the server opens it
PASSPHRASE_SEALED = "passphrase-sealed"  # noqa: S105 - a format name; only the passphrase opens it
UNKNOWN = "unknown"
# A sealed zip opened for reading is spooled to a temporary file beyond this size.
SPOOL_BYTES = 16 * 1024 * 1024


def artifact_format(path: Path) -> str:
    """What the export file at `path` is (PLAIN_ZIP, MEMBER_SEALED, PASSPHRASE_SEALED or
    UNKNOWN), by its first bytes."""
    from datarights.crypto import MAGIC, is_member_sealed

    with open(path, "rb") as handle:
        head = handle.read(64)
    if head.startswith(ZIP_MAGIC):
        return PLAIN_ZIP
    if is_member_sealed(head):
        return MEMBER_SEALED
    if head.startswith(MAGIC + b" "):
        return PASSPHRASE_SEALED
    return UNKNOWN


def open_sealed_chunks(path: Path, *, member_id=None) -> Iterator[bytes]:
    """The plaintext zip of a member-sealed export file, chunk by chunk (bounded memory).
    Raises `crypto.KeyDestroyed` once the member's keys were shredded and
    `crypto.DecryptionFailed` for an altered or truncated file (possibly after some
    chunks: verify with `verify_sealed` first when nothing partial may go out)."""
    from datarights.crypto import decrypt_member_lines

    with open(path, "rb") as handle:
        yield from decrypt_member_lines(handle, member_id=member_id)


def verify_sealed(path: Path, *, member_id=None) -> None:
    """Decrypts the whole member-sealed file without keeping anything; raises as
    `open_sealed_chunks` does."""
    for _ in open_sealed_chunks(path, member_id=member_id):
        pass


@contextmanager
def open_zip(path: Path) -> Iterator[zipfile.ZipFile]:
    """The export zip at `path`, whether stored plain or sealed under the member's key
    (decrypted into a temporary spool, never next to the export)."""
    if artifact_format(path) != MEMBER_SEALED:
        with zipfile.ZipFile(path) as archive:
            yield archive
        return
    with tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES) as spool:
        for chunk in open_sealed_chunks(path):
            spool.write(chunk)
        spool.seek(0)
        with zipfile.ZipFile(spool) as archive:
            yield archive


def read_member(path: Path, name: str = DATA_NAME) -> bytes:
    """One member of an export zip not sealed by a passphrase (data.json by default)."""
    with open_zip(path) as archive:
        return archive.read(name)


def write_artifact(
    *,
    request_id,
    member_id,
    payload: ExportPayload,
    generated_at: datetime,
    key: bytes | None,
    salt: bytes | None,
    partial_name: str,
) -> tuple[str, str, int]:
    """Write the bundle into the partial file `partial_name` of the member's export
    directory; the caller publishes it under the returned final name (`publish_artifact`)
    once it knows its run won, so a partial file never carries the final name and
    concurrent runs of one job never interleave in one file.
    The zip is sealed under `key` (the member's passphrase's) when given, else under a
    key derived from the member's data key.
    Returns (final file name, SHA-256 of the (plaintext) zip, file size)."""
    from datarights.crypto import EncryptingWriter, member_writer

    directory = _private_dir(member_id)
    name = f"{request_id}.zip.enc" if key else f"{request_id}.zip.sealed"
    partial = directory / partial_name
    with os.fdopen(os.open(partial, _PRIVATE_FLAGS, FILE_MODE), "wb") as raw:
        if key:
            writer = EncryptingWriter(raw, key=key, salt=salt)
        else:
            writer = member_writer(raw, member_id=member_id, label=f"export-file:{request_id}")
        digest, _ = write_zip(
            request_id=request_id,
            member_id=member_id,
            payload=payload,
            generated_at=generated_at,
            out=writer,
        )
        writer.close()
        raw.flush()
        os.fsync(raw.fileno())
        size = os.fstat(raw.fileno()).st_size  # by handle: a stale partial may be unlinked
    return name, digest, size


def publish_artifact(*, member_id, partial_name: str, name: str) -> None:
    """Give a finished partial its final name (atomic on one file system)."""
    directory = member_dir(member_id)
    os.replace(directory / partial_name, directory / name)


def discard_partial(*, member_id, partial_name: str) -> None:
    (member_dir(member_id) / partial_name).unlink(missing_ok=True)


def discard_stale_partials(*, member_id, request_id, keep: str) -> int:
    """Remove the partials other runs of this request left behind (a killed worker's);
    called by the run that publishes, under the request's lock."""
    removed = 0
    for path in member_dir(member_id).glob(f"{request_id}*.partial"):
        if path.name != keep:
            path.unlink(missing_ok=True)
            removed += 1
    return removed


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
