"""Each MCP tool is one REST operation, run in-process through Django's own handler.

The tool builds the request the REST API documents (method, path, JSON body, query) with
the caller's own bearer token and hands it to Django's WSGI handler without a socket.
So middleware, DRF authentication and permissions, throttles, the view's input contract,
its service, every gate, refusal code and audit event, and the error envelope are the
REST API's own: nothing is restated here, and a change to an endpoint reaches its tool.

Synchronous (the ORM is): async callers go through `asgiref.sync.sync_to_async`.
"""

import functools
import json
import sys
from dataclasses import dataclass, field
from io import BytesIO
from urllib.parse import unquote, urlencode

from django.core.handlers.wsgi import WSGIHandler

from iris_site.idempotency import REPLAYED_HEADER

# Headers of the MCP request that the REST request carries on, so that Django sees the
# same host, client address and proxy chain (ALLOWED_HOSTS, NUM_PROXIES, the HTTPS
# header) as it would for a REST call through the same front door.
FORWARDED_HEADERS = ("host", "user-agent", "x-forwarded-for", "x-forwarded-proto")


@dataclass(frozen=True, slots=True)
class Caller:
    """Who calls and from where: the raw bearer token and the MCP request's origin."""

    token: str
    client_host: str
    scheme: str = "http"
    headers: dict[str, str] = field(default_factory=dict)  # FORWARDED_HEADERS, lower-case


@dataclass(frozen=True, slots=True)
class RestAnswer:
    status: int
    body: dict
    # The answer's `Iris-*` headers (what REST says beside the body, e.g. a promotion).
    headers: dict = field(default_factory=dict)
    # An idempotent write answered again from its first call (`Idempotent-Replayed`).
    replayed: bool = False

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300


def _path_info(path: str) -> str:
    """WSGI's `PATH_INFO` for a URL path (`reverse()`'s, percent-encoded): decoded, as a
    server hands it to Django (UTF-8 bytes as ISO-8859-1 text), so that a session id
    `a?b` is `a?b` to the view as over HTTP, not `a%3Fb`."""
    return unquote(path, errors="strict").encode("utf-8").decode("iso-8859-1")


@functools.cache
def _wsgi_handler() -> WSGIHandler:
    """One handler per process (its middleware chain is built once), as a WSGI server."""
    return WSGIHandler()


def rest_call(
    caller: Caller,
    method: str,
    path: str,
    *,
    body: dict | None = None,
    query: dict[str, str] | None = None,
    headers: dict[str, str] | None = None,
) -> RestAnswer:
    """One REST request, answered by Django in this thread; `headers` are the request's
    own (e.g. `Idempotency-Key`), beside those carried on from the caller."""
    payload = b"" if body is None else json.dumps(body).encode()
    host = caller.headers.get("host", "localhost")
    environ = {
        "REQUEST_METHOD": method,
        "SCRIPT_NAME": "",
        "PATH_INFO": _path_info(path),
        "QUERY_STRING": urlencode(query or {}),
        "SERVER_NAME": host.rsplit(":", 1)[0],
        "SERVER_PORT": "443" if caller.scheme == "https" else "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": caller.client_host,
        "HTTP_ACCEPT": "application/json",
        "HTTP_AUTHORIZATION": f"Bearer {caller.token}",
        "CONTENT_TYPE": "application/json",
        "CONTENT_LENGTH": str(len(payload)),
        "wsgi.input": BytesIO(payload),
        "wsgi.errors": sys.stderr,
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": caller.scheme,
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }
    for name in FORWARDED_HEADERS:
        if name in caller.headers:
            environ["HTTP_" + name.upper().replace("-", "_")] = caller.headers[name]
    for name, value in (headers or {}).items():
        environ["HTTP_" + name.upper().replace("-", "_")] = value
    response = _wsgi_handler()(environ, lambda status, headers, exc_info=None: None)
    try:
        content = b"".join(response)
    finally:
        response.close()  # request_finished: Django closes what the request opened
    try:
        parsed = json.loads(content) if content else {}
    except ValueError:
        parsed = {}
    if not isinstance(parsed, dict):
        parsed = {"results": parsed}
    iris_headers = {name: value for name, value in response.items() if name.startswith("Iris-")}
    return RestAnswer(
        status=response.status_code,
        body=parsed,
        headers=iris_headers,
        replayed=response.get(REPLAYED_HEADER) == "true",
    )
