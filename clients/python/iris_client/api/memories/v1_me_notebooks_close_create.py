from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.notebook_closure import NotebookClosure
from ...types import Response


def _get_kwargs(
    notebook_id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/me/notebooks/{notebook_id}/close/".format(
            notebook_id=quote(str(notebook_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> NotebookClosure | None:
    if response.status_code == 200:
        response_200 = NotebookClosure.from_dict(response.json())

        return response_200

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[NotebookClosure]:
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
) -> Response[NotebookClosure]:
    """Close a notebook

     Close a notebook: nothing new is remembered in it (writes answer 409 `notebook-closed`), and its
    memory is erased 30 days later by the retention sweep (`erase_after`), when it becomes deleted.
    Closing a closed notebook returns its closure unchanged. 404: no memory in that notebook, or
    deleted.

    Args:
        notebook_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[NotebookClosure]
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
) -> NotebookClosure | None:
    """Close a notebook

     Close a notebook: nothing new is remembered in it (writes answer 409 `notebook-closed`), and its
    memory is erased 30 days later by the retention sweep (`erase_after`), when it becomes deleted.
    Closing a closed notebook returns its closure unchanged. 404: no memory in that notebook, or
    deleted.

    Args:
        notebook_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        NotebookClosure
    """

    return sync_detailed(
        notebook_id=notebook_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    notebook_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[NotebookClosure]:
    """Close a notebook

     Close a notebook: nothing new is remembered in it (writes answer 409 `notebook-closed`), and its
    memory is erased 30 days later by the retention sweep (`erase_after`), when it becomes deleted.
    Closing a closed notebook returns its closure unchanged. 404: no memory in that notebook, or
    deleted.

    Args:
        notebook_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[NotebookClosure]
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
) -> NotebookClosure | None:
    """Close a notebook

     Close a notebook: nothing new is remembered in it (writes answer 409 `notebook-closed`), and its
    memory is erased 30 days later by the retention sweep (`erase_after`), when it becomes deleted.
    Closing a closed notebook returns its closure unchanged. 404: no memory in that notebook, or
    deleted.

    Args:
        notebook_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        NotebookClosure
    """

    return (
        await asyncio_detailed(
            notebook_id=notebook_id,
            client=client,
        )
    ).parsed
