"""Outbound HTTP for webhooks, safe to point at a URL an operator typed.

- HTTPS only, unless `settings.DEBUG`.
- The host is resolved here and each address is checked before it is connected to: a
  private, loopback, link-local, shared, multicast, unspecified or reserved address is
  refused unless `IRIS_WEBHOOK_ALLOWED_HOSTS` names the host or the address. The check
  is made in the connection itself (a network backend for httpcore, the transport under
  httpx), on the address actually connected to, so a name that resolves to a public
  address when set and to a private one later (DNS rebinding) is refused then too. TLS
  still verifies the certificate against the host name. No proxy from the environment.
- No redirect is followed (a 3xx is a failure, `redirect`).
- Timeouts: connect 2 s; the whole attempt (connect, TLS, request, response) 5 s.
- At most 64 KiB of the response is read; beyond that the attempt is `too-large`.

`post` never raises for a network fault: it returns an `Outcome`.
"""

import ipaddress
import socket
import ssl
import time
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from urllib.parse import urlsplit

import httpcore2
from django.conf import settings

from webhooks.enums import FailureKind

CONNECT_TIMEOUT = 2.0
TOTAL_TIMEOUT = 5.0
MAX_RESPONSE_BYTES = 64 * 1024


@dataclass(frozen=True)
class Outcome:
    """An attempt's result: `status` ("204", or a `FailureKind`) and whether it delivered."""

    status: str
    delivered: bool = False


class AddressBlocked(Exception):
    """Every address the host resolves to is one webhooks may not reach."""


class _Expired(httpcore2.TimeoutException):
    """The attempt's total time ran out."""


def _allowed_names() -> frozenset[str]:
    return frozenset(str(h).strip().lower() for h in settings.IRIS_WEBHOOK_ALLOWED_HOSTS)


def address_allowed(address: str, host: str = "") -> bool:
    """A public unicast address, or one the allow-list names (by host name or address)."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    allowed = _allowed_names()
    if host.lower().strip("[]") in allowed or str(ip) in allowed:
        return True
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not (
        ip.is_private
        or ip.is_loopback
        or ip.is_link_local
        or ip.is_multicast
        or ip.is_reserved
        or ip.is_unspecified
    )


def url_problem(url: str) -> str | None:
    """Why this URL may not be an endpoint (None: it may). The address is checked again
    at every connection: a name may resolve elsewhere later."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is not one
    except ValueError:
        return "Not a URL."
    if parts.scheme != "https" and not (settings.DEBUG and parts.scheme == "http"):
        return "Webhook URLs use HTTPS."
    if not parts.hostname:
        return "The URL names no host."
    if parts.username or parts.password:
        return "Credentials do not belong in the URL."
    return None


class _DeadlineStream(httpcore2.NetworkStream):
    """Every read and write waits at most what is left of the attempt's total time."""

    def __init__(self, inner: httpcore2.NetworkStream, deadline: float) -> None:
        self._inner = inner
        self._deadline = deadline

    def _left(self, timeout: float | None) -> float:
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise _Expired("the attempt's total time ran out")
        return left if timeout is None else min(timeout, left)

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, self._left(timeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, self._left(timeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, ssl_context, server_hostname=None, timeout=None):
        inner = self._inner.start_tls(ssl_context, server_hostname, self._left(timeout))
        return _DeadlineStream(inner, self._deadline)

    def get_extra_info(self, info: str):
        return self._inner.get_extra_info(info)


class _GuardedBackend(httpcore2.SyncBackend):
    """Resolves the host itself and connects only to an address `address_allowed`."""

    def __init__(self, deadline: float) -> None:
        self._deadline = deadline

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable | None = None,
    ) -> httpcore2.NetworkStream:
        try:
            found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except OSError as exc:
            raise httpcore2.ConnectError(str(exc)) from exc
        addresses = list(dict.fromkeys(info[4][0] for info in found))
        allowed = [a for a in addresses if address_allowed(a, host)]
        if not allowed:
            raise AddressBlocked(host)
        error: Exception | None = None
        for address in allowed:
            left = self._deadline - time.monotonic()
            if left <= 0:
                raise _Expired("the attempt's total time ran out")
            wait = min(timeout or CONNECT_TIMEOUT, CONNECT_TIMEOUT, left)
            try:
                stream = super().connect_tcp(address, port, wait, local_address, socket_options)
            except httpcore2.ConnectError as exc:
                error = exc
                continue
            return _DeadlineStream(stream, self._deadline)
        assert error is not None
        raise error


@cache
def _ssl_context() -> ssl.SSLContext:
    return ssl.create_default_context()


def _caused_by(exc: BaseException, kind: type[BaseException]) -> bool:
    seen: BaseException | None = exc
    for _ in range(8):
        if seen is None:
            return False
        if isinstance(seen, kind):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _failure(exc: BaseException) -> str:
    if isinstance(exc, AddressBlocked):
        return FailureKind.BLOCKED
    if isinstance(exc, httpcore2.TimeoutException):
        return FailureKind.TIMEOUT
    if isinstance(exc, httpcore2.ConnectError) and _caused_by(exc, ConnectionRefusedError):
        return FailureKind.REFUSED
    return FailureKind.UNREACHABLE


def post(url: str, *, body: bytes, headers: dict[str, str]) -> Outcome:
    """POST `body` once to `url`; never follows a redirect, never raises for the network."""
    if url_problem(url):
        return Outcome(FailureKind.BLOCKED)
    deadline = time.monotonic() + TOTAL_TIMEOUT
    pool = httpcore2.ConnectionPool(
        ssl_context=_ssl_context(),
        max_connections=1,
        retries=0,
        network_backend=_GuardedBackend(deadline),
    )
    request_headers = [
        (b"content-type", b"application/json"),
        (b"user-agent", b"iris-webhooks/1"),
        *((k.encode("ascii"), v.encode("ascii")) for k, v in headers.items()),
    ]
    timeouts = {"connect": CONNECT_TIMEOUT, "read": TOTAL_TIMEOUT, "write": TOTAL_TIMEOUT}
    try:
        with (
            pool,
            pool.stream(
                "POST",
                url,
                headers=request_headers,
                content=body,
                extensions={"timeout": {**timeouts, "pool": CONNECT_TIMEOUT}},
            ) as response,
        ):
            read = 0
            for chunk in response.iter_stream():
                read += len(chunk)
                if read > MAX_RESPONSE_BYTES:
                    return Outcome(FailureKind.TOO_LARGE)
            status = response.status
    except (AddressBlocked, httpcore2.TimeoutException, httpcore2.NetworkError) as exc:
        return Outcome(_failure(exc))
    except httpcore2.ProtocolError:
        return Outcome(FailureKind.UNREACHABLE)
    if 300 <= status < 400:
        return Outcome(FailureKind.REDIRECT)
    return Outcome(str(status), delivered=200 <= status < 300)
