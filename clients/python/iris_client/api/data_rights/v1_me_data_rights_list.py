from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.paginated_receipt_list import PaginatedReceiptList
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    cursor: str | Unset = UNSET,
    page_size: int | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["cursor"] = cursor

    params["page_size"] = page_size

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/me/data-rights/",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> PaginatedReceiptList | None:
    if response.status_code == 200:
        response_200 = PaginatedReceiptList.from_dict(response.json())

        return response_200

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[PaginatedReceiptList]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    cursor: str | Unset = UNSET,
    page_size: int | Unset = UNSET,
) -> Response[PaginatedReceiptList]:
    """My data-rights requests, newest first

     GET: my requests, newest first. POST: submit a delete, export or access request.

    One request of each kind is open at a time: a POST while one of its kind is open
    (submitted, verified or in progress) makes nothing and answers 200 with that open
    request, whatever its payload (a retry or a double-click gets the running request).
    A new request is a 201.

    Args:
        cursor (str | Unset):
        page_size (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PaginatedReceiptList]
    """

    kwargs = _get_kwargs(
        cursor=cursor,
        page_size=page_size,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    cursor: str | Unset = UNSET,
    page_size: int | Unset = UNSET,
) -> PaginatedReceiptList | None:
    """My data-rights requests, newest first

     GET: my requests, newest first. POST: submit a delete, export or access request.

    One request of each kind is open at a time: a POST while one of its kind is open
    (submitted, verified or in progress) makes nothing and answers 200 with that open
    request, whatever its payload (a retry or a double-click gets the running request).
    A new request is a 201.

    Args:
        cursor (str | Unset):
        page_size (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PaginatedReceiptList
    """

    return sync_detailed(
        client=client,
        cursor=cursor,
        page_size=page_size,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    cursor: str | Unset = UNSET,
    page_size: int | Unset = UNSET,
) -> Response[PaginatedReceiptList]:
    """My data-rights requests, newest first

     GET: my requests, newest first. POST: submit a delete, export or access request.

    One request of each kind is open at a time: a POST while one of its kind is open
    (submitted, verified or in progress) makes nothing and answers 200 with that open
    request, whatever its payload (a retry or a double-click gets the running request).
    A new request is a 201.

    Args:
        cursor (str | Unset):
        page_size (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PaginatedReceiptList]
    """

    kwargs = _get_kwargs(
        cursor=cursor,
        page_size=page_size,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    cursor: str | Unset = UNSET,
    page_size: int | Unset = UNSET,
) -> PaginatedReceiptList | None:
    """My data-rights requests, newest first

     GET: my requests, newest first. POST: submit a delete, export or access request.

    One request of each kind is open at a time: a POST while one of its kind is open
    (submitted, verified or in progress) makes nothing and answers 200 with that open
    request, whatever its payload (a retry or a double-click gets the running request).
    A new request is a 201.

    Args:
        cursor (str | Unset):
        page_size (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PaginatedReceiptList
    """

    return (
        await asyncio_detailed(
            client=client,
            cursor=cursor,
            page_size=page_size,
        )
    ).parsed
