from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.memory_entry import MemoryEntry
from ...models.patched_memory_edit_input_request import PatchedMemoryEditInputRequest
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: UUID,
    *,
    body: PatchedMemoryEditInputRequest | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "patch",
        "url": "/api/v1/me/memories/{id}/".format(
            id=quote(str(id), safe=""),
        ),
    }

    if not isinstance(body, Unset):
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
    body: PatchedMemoryEditInputRequest | Unset = UNSET,
) -> Response[MemoryEntry]:
    """Restate one of my memories

     GET: one of my memories with its provenance, suppression, recent recalls and any
    open question about it. PATCH: restate it (a new revision; my word supersedes what
    shares its new conflict key). Only the current version is edited: a superseded or
    draft memory, or a stale `revision_id`, is 409 `not-head` naming the current one.

    Args:
        id (UUID):
        body (PatchedMemoryEditInputRequest | Unset): Refuses fields it does not know, so a client
            never believes it set one.

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
    body: PatchedMemoryEditInputRequest | Unset = UNSET,
) -> MemoryEntry | None:
    """Restate one of my memories

     GET: one of my memories with its provenance, suppression, recent recalls and any
    open question about it. PATCH: restate it (a new revision; my word supersedes what
    shares its new conflict key). Only the current version is edited: a superseded or
    draft memory, or a stale `revision_id`, is 409 `not-head` naming the current one.

    Args:
        id (UUID):
        body (PatchedMemoryEditInputRequest | Unset): Refuses fields it does not know, so a client
            never believes it set one.

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
    body: PatchedMemoryEditInputRequest | Unset = UNSET,
) -> Response[MemoryEntry]:
    """Restate one of my memories

     GET: one of my memories with its provenance, suppression, recent recalls and any
    open question about it. PATCH: restate it (a new revision; my word supersedes what
    shares its new conflict key). Only the current version is edited: a superseded or
    draft memory, or a stale `revision_id`, is 409 `not-head` naming the current one.

    Args:
        id (UUID):
        body (PatchedMemoryEditInputRequest | Unset): Refuses fields it does not know, so a client
            never believes it set one.

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
    body: PatchedMemoryEditInputRequest | Unset = UNSET,
) -> MemoryEntry | None:
    """Restate one of my memories

     GET: one of my memories with its provenance, suppression, recent recalls and any
    open question about it. PATCH: restate it (a new revision; my word supersedes what
    shares its new conflict key). Only the current version is edited: a superseded or
    draft memory, or a stale `revision_id`, is 409 `not-head` naming the current one.

    Args:
        id (UUID):
        body (PatchedMemoryEditInputRequest | Unset): Refuses fields it does not know, so a client
            never believes it set one.

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
