from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...types import Response


def _get_kwargs(
    member_id: UUID,
    notebook_id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "delete",
        "url": "/api/v1/members/{member_id}/notebooks/{notebook_id}/".format(
            member_id=quote(str(member_id), safe=""),
            notebook_id=quote(str(notebook_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Any | None:
    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[Any]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    member_id: UUID,
    notebook_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[Any]:
    """Delete a member's notebook (always refused to surfaces)

     Refused: 403 `member-forgetting-only`. Deleting a notebook forgets its memory; only the member does
    that (`DELETE /api/v1/me/notebooks/{id}/`, with a step-up token).

    Args:
        member_id (UUID):
        notebook_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any]
    """

    kwargs = _get_kwargs(
        member_id=member_id,
        notebook_id=notebook_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


async def asyncio_detailed(
    member_id: UUID,
    notebook_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[Any]:
    """Delete a member's notebook (always refused to surfaces)

     Refused: 403 `member-forgetting-only`. Deleting a notebook forgets its memory; only the member does
    that (`DELETE /api/v1/me/notebooks/{id}/`, with a step-up token).

    Args:
        member_id (UUID):
        notebook_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any]
    """

    kwargs = _get_kwargs(
        member_id=member_id,
        notebook_id=notebook_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)
