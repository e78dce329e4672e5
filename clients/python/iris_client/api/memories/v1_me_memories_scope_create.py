from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.memory_entry import MemoryEntry
from ...models.memory_scope_change_input_request import MemoryScopeChangeInputRequest
from ...types import Response


def _get_kwargs(
    id: UUID,
    *,
    body: MemoryScopeChangeInputRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/me/memories/{id}/scope/".format(
            id=quote(str(id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> MemoryEntry | None:
    if response.status_code == 200:
        response_200 = MemoryEntry.from_dict(response.json())

        return response_200

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[MemoryEntry]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: UUID,
    *,
    client: AuthenticatedClient,
    body: MemoryScopeChangeInputRequest,
) -> Response[MemoryEntry]:
    """Move a memory to another scope

     Move a memory to another scope within the per-scope rules (session → profile,
    session → notebook, profile → notebook). A refusal is a 422 whose `code` says why,
    e.g. `tenant-memory-stays-in-tenant`.

    Args:
        id (UUID):
        body (MemoryScopeChangeInputRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[MemoryEntry]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: UUID,
    *,
    client: AuthenticatedClient,
    body: MemoryScopeChangeInputRequest,
) -> MemoryEntry | None:
    """Move a memory to another scope

     Move a memory to another scope within the per-scope rules (session → profile,
    session → notebook, profile → notebook). A refusal is a 422 whose `code` says why,
    e.g. `tenant-memory-stays-in-tenant`.

    Args:
        id (UUID):
        body (MemoryScopeChangeInputRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        MemoryEntry
    """

    return sync_detailed(
        id=id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    id: UUID,
    *,
    client: AuthenticatedClient,
    body: MemoryScopeChangeInputRequest,
) -> Response[MemoryEntry]:
    """Move a memory to another scope

     Move a memory to another scope within the per-scope rules (session → profile,
    session → notebook, profile → notebook). A refusal is a 422 whose `code` says why,
    e.g. `tenant-memory-stays-in-tenant`.

    Args:
        id (UUID):
        body (MemoryScopeChangeInputRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[MemoryEntry]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: UUID,
    *,
    client: AuthenticatedClient,
    body: MemoryScopeChangeInputRequest,
) -> MemoryEntry | None:
    """Move a memory to another scope

     Move a memory to another scope within the per-scope rules (session → profile,
    session → notebook, profile → notebook). A refusal is a 422 whose `code` says why,
    e.g. `tenant-memory-stays-in-tenant`.

    Args:
        id (UUID):
        body (MemoryScopeChangeInputRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        MemoryEntry
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            body=body,
        )
    ).parsed
