"""Passphrase encryption of export bundles, streamed in bounded memory.

Format (text lines): a header `IRIS-DSAR-ENC1 <salt, urlsafe base64>`, then one Fernet
token per chunk. The key is scrypt(passphrase, salt); each chunk's plaintext starts with
its 8-byte index and a 1-byte "last" flag, so chunks cannot be reordered, dropped or
truncated without the decryption failing. Fernet (AES-128-CBC + HMAC-SHA256) comes from
the `cryptography` package; nothing here is home-made cryptography beyond the framing.

The key is derived when the member submits the request (the passphrase is never
stored); until the job has written the file the derived key is kept sealed under a
server key (`seal`), and then dropped.
"""

import base64
import hashlib
import json
import os
from collections.abc import Iterable, Iterator
from typing import BinaryIO

from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

MAGIC = b"IRIS-DSAR-ENC1"
SALT_BYTES = 16
CHUNK_BYTES = 64 * 1024
MIN_PASSPHRASE_LENGTH = 12
# scrypt cost: ~0.1 s and 16 MiB per derivation on a server core.
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1


class DecryptionFailed(ValueError):
    pass


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

    def __init__(self, out: BinaryIO, *, key: bytes, salt: bytes) -> None:
        self._out = out
        self._fernet = Fernet(key)
        self._buffer = bytearray()
        self._index = 0
        out.write(MAGIC + b" " + base64.urlsafe_b64encode(salt) + b"\n")

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


def decrypt_lines(lines: Iterable[bytes], passphrase: str) -> Iterator[bytes]:
    """The plaintext of an encrypted bundle, chunk by chunk; raises DecryptionFailed."""
    iterator = iter(lines)
    header = next(iterator, b"").strip()
    magic, _, salt_text = header.partition(b" ")
    if magic != MAGIC:
        raise DecryptionFailed("not an encrypted Iris export")
    fernet = Fernet(derive_key(passphrase, base64.urlsafe_b64decode(salt_text)))
    expected, finished = 0, False
    for line in iterator:
        line = line.strip()
        if not line:
            continue
        if finished:
            raise DecryptionFailed("data after the last chunk")
        try:
            frame = fernet.decrypt(line)
        except InvalidToken as exc:
            raise DecryptionFailed("wrong passphrase, or the file was altered") from exc
        if int.from_bytes(frame[:8], "big") != expected:
            raise DecryptionFailed("chunks out of order")
        finished = frame[8:9] == b"\x01"
        expected += 1
        yield frame[9:]
    if not finished:
        raise DecryptionFailed("the file is truncated")
