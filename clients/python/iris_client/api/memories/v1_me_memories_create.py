from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.memory_create_input_request import MemoryCreateInputRequest
from ...models.memory_entry import MemoryEntry
from ...models.memory_kept_existing import MemoryKeptExisting
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: MemoryCreateInputRequest,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/me/memories/",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> MemoryEntry | MemoryKeptExisting | None:
    if response.status_code == 200:
        response_200 = MemoryKeptExisting.from_dict(response.json())

        return response_200

    if response.status_code == 201:
        response_201 = MemoryEntry.from_dict(response.json())

        return response_201

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[MemoryEntry | MemoryKeptExisting]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: MemoryCreateInputRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[MemoryEntry | MemoryKeptExisting]:
    """State a memory myself

     GET: my memories, most recently changed first (forgotten ones excluded).
    POST: state a memory myself (origin `user-stated`, scope `user_id` is mine).

    A POST goes through the same consent-checked write path as a surface's remember:
    off-the-record, scope policy, the privacy storage gate and the conflict ladder.

    Args:
        idempotency_key (str | Unset):
        body (MemoryCreateInputRequest): A memory the member states: `origin` is always `user-
            stated`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[MemoryEntry | MemoryKeptExisting]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: MemoryCreateInputRequest,
    idempotency_key: str | Unset = UNSET,
) -> MemoryEntry | MemoryKeptExisting | None:
    """State a memory myself

     GET: my memories, most recently changed first (forgotten ones excluded).
    POST: state a memory myself (origin `user-stated`, scope `user_id` is mine).

    A POST goes through the same consent-checked write path as a surface's remember:
    off-the-record, scope policy, the privacy storage gate and the conflict ladder.

    Args:
        idempotency_key (str | Unset):
        body (MemoryCreateInputRequest): A memory the member states: `origin` is always `user-
            stated`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        MemoryEntry | MemoryKeptExisting
    """

    return sync_detailed(
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: MemoryCreateInputRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[MemoryEntry | MemoryKeptExisting]:
    """State a memory myself

     GET: my memories, most recently changed first (forgotten ones excluded).
    POST: state a memory myself (origin `user-stated`, scope `user_id` is mine).

    A POST goes through the same consent-checked write path as a surface's remember:
    off-the-record, scope policy, the privacy storage gate and the conflict ladder.

    Args:
        idempotency_key (str | Unset):
        body (MemoryCreateInputRequest): A memory the member states: `origin` is always `user-
            stated`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[MemoryEntry | MemoryKeptExisting]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: MemoryCreateInputRequest,
    idempotency_key: str | Unset = UNSET,
) -> MemoryEntry | MemoryKeptExisting | None:
    """State a memory myself

     GET: my memories, most recently changed first (forgotten ones excluded).
    POST: state a memory myself (origin `user-stated`, scope `user_id` is mine).

    A POST goes through the same consent-checked write path as a surface's remember:
    off-the-record, scope policy, the privacy storage gate and the conflict ladder.

    Args:
        idempotency_key (str | Unset):
        body (MemoryCreateInputRequest): A memory the member states: `origin` is always `user-
            stated`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        MemoryEntry | MemoryKeptExisting
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
