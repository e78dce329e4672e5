from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.memory_forget_result import MemoryForgetResult
from ...types import Response


def _get_kwargs(
    actor_handle: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/me/actors/{actor_handle}/forget/".format(
            actor_handle=quote(str(actor_handle), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> MemoryForgetResult | None:
    if response.status_code == 200:
        response_200 = MemoryForgetResult.from_dict(response.json())

        return response_200

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[MemoryForgetResult]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    actor_handle: str,
    *,
    client: AuthenticatedClient,
) -> Response[MemoryForgetResult]:
    """Forget every mention of one person

     Forget every mention of one person: each entry tagged with the handle is
    tombstoned. Forgetting a handle nothing mentions is a no-op, not an error.

    Args:
        actor_handle (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[MemoryForgetResult]
    """

    kwargs = _get_kwargs(
        actor_handle=actor_handle,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    actor_handle: str,
    *,
    client: AuthenticatedClient,
) -> MemoryForgetResult | None:
    """Forget every mention of one person

     Forget every mention of one person: each entry tagged with the handle is
    tombstoned. Forgetting a handle nothing mentions is a no-op, not an error.

    Args:
        actor_handle (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        MemoryForgetResult
    """

    return sync_detailed(
        actor_handle=actor_handle,
        client=client,
    ).parsed


async def asyncio_detailed(
    actor_handle: str,
    *,
    client: AuthenticatedClient,
) -> Response[MemoryForgetResult]:
    """Forget every mention of one person

     Forget every mention of one person: each entry tagged with the handle is
    tombstoned. Forgetting a handle nothing mentions is a no-op, not an error.

    Args:
        actor_handle (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[MemoryForgetResult]
    """

    kwargs = _get_kwargs(
        actor_handle=actor_handle,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    actor_handle: str,
    *,
    client: AuthenticatedClient,
) -> MemoryForgetResult | None:
    """Forget every mention of one person

     Forget every mention of one person: each entry tagged with the handle is
    tombstoned. Forgetting a handle nothing mentions is a no-op, not an error.

    Args:
        actor_handle (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        MemoryForgetResult
    """

    return (
        await asyncio_detailed(
            actor_handle=actor_handle,
            client=client,
        )
    ).parsed
