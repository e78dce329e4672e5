from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.notebook_deleted import NotebookDeleted
from ...types import Response


def _get_kwargs(
    notebook_id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "delete",
        "url": "/api/v1/me/notebooks/{notebook_id}/".format(
            notebook_id=quote(str(notebook_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> NotebookDeleted | None:
    if response.status_code == 200:
        response_200 = NotebookDeleted.from_dict(response.json())

        return response_200

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[NotebookDeleted]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    notebook_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[NotebookDeleted]:
    """Delete a notebook

     Delete a notebook: its memory, and summaries made from it, is erased now (tombstones keep ids, times
    and a keyed digest). 404: no memory in that notebook, or deleted already.

    Args:
        notebook_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[NotebookDeleted]
    """

    kwargs = _get_kwargs(
        notebook_id=notebook_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    notebook_id: str,
    *,
    client: AuthenticatedClient,
) -> NotebookDeleted | None:
    """Delete a notebook

     Delete a notebook: its memory, and summaries made from it, is erased now (tombstones keep ids, times
    and a keyed digest). 404: no memory in that notebook, or deleted already.

    Args:
        notebook_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        NotebookDeleted
    """

    return sync_detailed(
        notebook_id=notebook_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    notebook_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[NotebookDeleted]:
    """Delete a notebook

     Delete a notebook: its memory, and summaries made from it, is erased now (tombstones keep ids, times
    and a keyed digest). 404: no memory in that notebook, or deleted already.

    Args:
        notebook_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[NotebookDeleted]
    """

    kwargs = _get_kwargs(
        notebook_id=notebook_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    notebook_id: str,
    *,
    client: AuthenticatedClient,
) -> NotebookDeleted | None:
    """Delete a notebook

     Delete a notebook: its memory, and summaries made from it, is erased now (tombstones keep ids, times
    and a keyed digest). 404: no memory in that notebook, or deleted already.

    Args:
        notebook_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        NotebookDeleted
    """

    return (
        await asyncio_detailed(
            notebook_id=notebook_id,
            client=client,
        )
    ).parsed
