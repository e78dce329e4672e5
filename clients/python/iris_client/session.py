"""`Iris`: the generated `AuthenticatedClient` with what the generated operations leave to
their caller — an `Idempotency-Key` on every write that takes one, retries with backoff
on 429 and 503 honouring `Retry-After`, and every error answer raised as an `IrisError`.

All of it lives in httpx's own seams, so every generated operation gets it, sync and
async alike: a request hook keys the write once per call and picks its retry policy; the
retry transport (httpx-retries) re-sends that same request, key included; a response hook
raises what is left once the retries are spent.
"""

import re
import uuid

import httpx
from attrs import define, field
from httpx_retries import Retry, RetryTransport

from iris_client.client import AuthenticatedClient
from iris_client.exceptions import error_for
from iris_client.idempotent import IDEMPOTENT_WRITES

IDEMPOTENCY_KEY = "Idempotency-Key"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_KEYED = [
    (method, re.compile(re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(path))))
    for method, path in IDEMPOTENT_WRITES
]


def default_retry() -> Retry:
    """Three retries on 429 and 503, backing off exponentially (0.5 s, 1 s, 2 s with
    jitter) or waiting what `Retry-After` says, at most 30 s a wait and 60 s in all."""
    return Retry(
        total=3,
        backoff_factor=0.5,
        status_forcelist=[429, 503],
        max_backoff_wait=30,
        total_timeout=60,
    )


def takes_idempotency_key(method: str, path: str) -> bool:
    return any(m == method and pattern.fullmatch(path) for m, pattern in _KEYED)


@define
class Iris(AuthenticatedClient):
    """A client of the Iris API with a bearer token: pass it as `client=` to any operation
    in `iris_client.api`, `sync`/`sync_detailed` or `asyncio`/`asyncio_detailed`.

        iris = Iris(base_url="http://127.0.0.1:8000", token="iris_…")

    `retry` tunes the retries (an `httpx_retries.Retry`; `default_retry()` otherwise).
    Reads and keyed writes are retried on 429, 503 and network errors; any other write
    only on 429 (refused before it ran) and on a connection never made."""

    retry: Retry = field(factory=default_retry, kw_only=True)
    raise_on_unexpected_status: bool = field(default=True, kw_only=True)

    def __repr__(self) -> str:
        return f"Iris(base_url={self._base_url!r})"  # never the token, in any log line

    def prepare(self, request: httpx.Request) -> None:
        """Key a write that takes an `Idempotency-Key` (once per call: a retry re-sends
        the same request) and choose how the request may be retried."""
        path = request.url.path.removeprefix(httpx.URL(self._base_url).path.rstrip("/"))
        if IDEMPOTENCY_KEY not in request.headers and takes_idempotency_key(request.method, path):
            request.headers[IDEMPOTENCY_KEY] = str(uuid.uuid4())
        retry = self.retry.copy_with(allowed_methods=[request.method])
        if request.method not in SAFE_METHODS and IDEMPOTENCY_KEY not in request.headers:
            retry = retry.copy_with(
                status_forcelist=[429], retry_on_exceptions=[httpx.ConnectError]
            )
        request.extensions["retry"] = retry

    def get_httpx_client(self) -> httpx.Client:
        if self._client is None:
            hooks = {"request": [self.prepare], "response": [_raise_for_error]}
            self._with_retries(super().get_httpx_client, httpx.HTTPTransport, hooks)
        return super().get_httpx_client()

    def get_async_httpx_client(self) -> httpx.AsyncClient:
        if self._async_client is None:

            async def prepare(request: httpx.Request) -> None:
                self.prepare(request)

            hooks = {"request": [prepare], "response": [_araise_for_error]}
            self._with_retries(super().get_async_httpx_client, httpx.AsyncHTTPTransport, hooks)
        return super().get_async_httpx_client()

    def _with_retries(self, build, transport, hooks) -> None:
        """Build the httpx client with the hooks and the retry transport around the
        caller's own transport (`httpx_args["transport"]`) or a default one."""
        args = self._httpx_args
        inner = args.get("transport") or transport(verify=self._verify_ssl)
        retrying = RetryTransport(transport=inner, retry=self.retry)
        self._httpx_args = {**args, "transport": retrying, "event_hooks": hooks}
        try:
            build()
        finally:
            self._httpx_args = args


def _raise_for_error(response: httpx.Response) -> None:
    if response.status_code >= 400:
        response.read()
        raise error_for(response)


async def _araise_for_error(response: httpx.Response) -> None:
    if response.status_code >= 400:
        await response.aread()
        raise error_for(response)
