"""Passphrase encryption of export bundles, streamed in bounded memory.

Format (text lines): a header `IRIS-DSAR-ENC1 <salt, urlsafe base64>`, then one Fernet
token per chunk. The key is scrypt(passphrase, salt); each chunk's plaintext starts with
its 8-byte index and a 1-byte "last" flag, so chunks cannot be reordered, dropped or
truncated without the decryption failing. Fernet (AES-128-CBC + HMAC-SHA256) comes from
the `cryptography` package; nothing here is home-made cryptography beyond the framing.

The key is derived when the member submits the request (the passphrase is never
stored); until the job has written the file the derived key is kept sealed under a
server key (`seal`), and then dropped.

An export asked for without a passphrase is encrypted at rest the same way, under a key
of the member's instead (`member_writer`, `decrypt_member_lines`): the header is
`IRIS-DSAR-MEMBER1 <salt> <member id> <key generation> <label>`, and the Fernet key is
HKDF(salt) over `envelope.member_file_key(member, label)`, a key derived from the
member's data key in the key store. The server decrypts it while the member downloads
it; once the member's keys are shredded (`envelope.shred`) it no longer opens
(`KeyDestroyed`), in this file system or any copy of it.
"""

import base64
import hashlib
import json
import os
from collections.abc import Iterable, Iterator
from typing import BinaryIO

from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

from iris_site.keys import envelope
from iris_site.keys.kek import KeyUnwrapFailed

MAGIC = b"IRIS-DSAR-ENC1"
MEMBER_MAGIC = b"IRIS-DSAR-MEMBER1"
MEMBER_FILE_INFO = b"iris.datarights.export-file.v1"
SALT_BYTES = 16
CHUNK_BYTES = 64 * 1024
MIN_PASSPHRASE_LENGTH = 12
# scrypt cost: ~0.1 s and 16 MiB per derivation on a server core.
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1


class DecryptionFailed(ValueError):
    pass


class KeyDestroyed(DecryptionFailed):
    """The file was sealed under a member key that was destroyed (crypto-shredded)."""


def new_salt() -> bytes:
    return os.urandom(SALT_BYTES)


def derive_key(passphrase: str, salt: bytes) -> bytes:
    """A Fernet key (urlsafe base64 of 32 bytes) from the member's passphrase."""
    kdf = Scrypt(salt=salt, length=32, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P)
    return base64.urlsafe_b64encode(kdf.derive(passphrase.encode("utf-8")))


def _server_fernet(server_secret: str) -> Fernet:
    digest = hashlib.sha256(b"iris.datarights.work-state.v1:" + server_secret.encode()).digest()
    return Fernet(base64.urlsafe_b64encode(digest))


def seal(data: dict, *, server_secret: str) -> str:
    """A job's scratch (a derived export key, text to search for), encrypted under the
    server key so the table never holds it in the clear."""
    return _server_fernet(server_secret).encrypt(json.dumps(data).encode()).decode("ascii")


def unseal(token: str, *, server_secret: str) -> dict:
    if not token:
        return {}
    return json.loads(_server_fernet(server_secret).decrypt(token.encode("ascii")))


class EncryptingWriter:
    """A write-only binary stream that encrypts what it is given in framed chunks."""

    def __init__(
        self,
        out: BinaryIO,
        *,
        key: bytes,
        salt: bytes,
        magic: bytes = MAGIC,
        fields: tuple[str, ...] = (),
    ) -> None:
        self._out = out
        self._fernet = Fernet(key)
        self._buffer = bytearray()
        self._index = 0
        header = [magic, base64.urlsafe_b64encode(salt), *(f.encode("ascii") for f in fields)]
        out.write(b" ".join(header) + b"\n")

    def _emit(self, data: bytes, *, last: bool) -> None:
        frame = self._index.to_bytes(8, "big") + (b"\x01" if last else b"\x00") + data
        self._out.write(self._fernet.encrypt(frame) + b"\n")
        self._index += 1

    def write(self, data: bytes) -> int:
        self._buffer.extend(data)
        while len(self._buffer) > CHUNK_BYTES:
            self._emit(bytes(self._buffer[:CHUNK_BYTES]), last=False)
            del self._buffer[:CHUNK_BYTES]
        return len(data)

    def close(self) -> None:
        self._emit(bytes(self._buffer), last=True)
        self._buffer.clear()


def _header(line: bytes) -> tuple[bytes, bytes, list[str]]:
    """(magic, salt, further fields) of an encrypted file's first line."""
    magic, _, rest = line.strip().partition(b" ")
    parts = rest.split(b" ")
    try:
        salt = base64.urlsafe_b64decode(parts[0])
        fields = [part.decode("ascii") for part in parts[1:]]
    except ValueError as exc:
        raise DecryptionFailed("a malformed header") from exc
    return magic, salt, fields


def _frames(lines: Iterator[bytes], fernet: Fernet, *, wrong_key: str) -> Iterator[bytes]:
    expected, finished = 0, False
    for line in lines:
        line = line.strip()
        if not line:
            continue
        if finished:
            raise DecryptionFailed("data after the last chunk")
        try:
            frame = fernet.decrypt(line)
        except InvalidToken as exc:
            raise DecryptionFailed(wrong_key) from exc
        if int.from_bytes(frame[:8], "big") != expected:
            raise DecryptionFailed("chunks out of order")
        finished = frame[8:9] == b"\x01"
        expected += 1
        yield frame[9:]
    if not finished:
        raise DecryptionFailed("the file is truncated")


def decrypt_lines(lines: Iterable[bytes], passphrase: str) -> Iterator[bytes]:
    """The plaintext of an encrypted bundle, chunk by chunk; raises DecryptionFailed."""
    iterator = iter(lines)
    magic, salt, _ = _header(next(iterator, b""))
    if magic != MAGIC:
        raise DecryptionFailed("not an encrypted Iris export")
    fernet = Fernet(derive_key(passphrase, salt))
    yield from _frames(iterator, fernet, wrong_key="wrong passphrase, or the file was altered")


# --- Sealed under the member's key -------------------------------------------------------


def _member_fernet_key(file_key: bytes, salt: bytes) -> bytes:
    derived = HKDF(algorithm=hashes.SHA256(), length=32, salt=salt, info=MEMBER_FILE_INFO).derive(
        file_key
    )
    return base64.urlsafe_b64encode(derived)


def member_writer(out: BinaryIO, *, member_id, label: str) -> EncryptingWriter:
    """An `EncryptingWriter` under the member's live key (`label` names the file, without
    spaces); `close()` it when everything is written."""
    generation, file_key = envelope.member_file_key(member_id, label)
    salt = new_salt()
    return EncryptingWriter(
        out,
        key=_member_fernet_key(file_key, salt),
        salt=salt,
        magic=MEMBER_MAGIC,
        fields=(str(member_id), str(generation), label),
    )


def is_member_sealed(head: bytes) -> bool:
    """Whether a file starting with `head` was written by `member_writer`."""
    return head.startswith(MEMBER_MAGIC + b" ")


def decrypt_member_lines(lines: Iterable[bytes], *, member_id=None) -> Iterator[bytes]:
    """The plaintext of a file written by `member_writer`, chunk by chunk. Raises
    `KeyDestroyed` when the member's key was shredded, `DecryptionFailed` when the file
    was altered, is truncated or (with `member_id`) is another member's; a key store
    that is down raises `KeyStoreUnavailable` (fail closed)."""
    iterator = iter(lines)
    magic, salt, fields = _header(next(iterator, b""))
    if magic != MEMBER_MAGIC or len(fields) != 3 or not fields[1].isdigit():
        raise DecryptionFailed("not an Iris export sealed under a member's key")
    owner, generation, label = fields
    if member_id is not None and owner != str(member_id):
        raise DecryptionFailed("sealed for another member")
    try:
        found = envelope.member_file_key(owner, label, generation=int(generation))
    except (KeyUnwrapFailed, ValueError) as exc:
        raise DecryptionFailed("the member's key does not unwrap") from exc
    if found is None:
        raise KeyDestroyed("the member's key was destroyed")
    fernet = Fernet(_member_fernet_key(found[1], salt))
    yield from _frames(iterator, fernet, wrong_key="the file was altered")
