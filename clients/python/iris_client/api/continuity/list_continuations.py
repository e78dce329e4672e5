from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.continuation_token_list_output import ContinuationTokenListOutput
from ...models.list_continuations_surface import (
    ListContinuationsSurface,
)
from ...types import UNSET, Response, Unset


def _get_kwargs(
    member_id: UUID,
    *,
    device_id: None | str | Unset = UNSET,
    limit: int | Unset = 5,
    surface: ListContinuationsSurface | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_device_id: None | str | Unset
    if isinstance(device_id, Unset):
        json_device_id = UNSET
    else:
        json_device_id = device_id
    params["device_id"] = json_device_id

    params["limit"] = limit

    json_surface: str | Unset = UNSET
    if not isinstance(surface, Unset):
        json_surface = surface

    params["surface"] = json_surface

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/members/{member_id}/continuation-tokens/".format(
            member_id=quote(str(member_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ContinuationTokenListOutput | None:
    if response.status_code == 200:
        response_200 = ContinuationTokenListOutput.from_dict(response.json())

        return response_200

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ContinuationTokenListOutput]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    member_id: UUID,
    *,
    client: AuthenticatedClient,
    device_id: None | str | Unset = UNSET,
    limit: int | Unset = 5,
    surface: ListContinuationsSurface | Unset = UNSET,
) -> Response[ContinuationTokenListOutput]:
    """List the member's continuation tokens

     The most recent tokens (by server time), `limit` 1..50 (default 5). Tokens naming sensitive
    categories leave the device that wrote them only while the `cross_device` grant they name is in
    force; "the device that wrote them" is what the server recorded at write (the authenticated client
    and its `device_id`), so naming a `device_id` alone never makes another client that device, and the
    member's browser is never it. `withheld` counts the tokens kept from this reader. With `device_id`,
    the device's pending "also playing on your other device" notices are delivered (once) to the service
    client whose writes lost; the member's browser is never that device and gets none. The shell reads
    every surface; a surface its own.

    Args:
        member_id (UUID):
        device_id (None | str | Unset):
        limit (int | Unset):  Default: 5.
        surface (ListContinuationsSurface | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ContinuationTokenListOutput]
    """

    kwargs = _get_kwargs(
        member_id=member_id,
        device_id=device_id,
        limit=limit,
        surface=surface,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    member_id: UUID,
    *,
    client: AuthenticatedClient,
    device_id: None | str | Unset = UNSET,
    limit: int | Unset = 5,
    surface: ListContinuationsSurface | Unset = UNSET,
) -> ContinuationTokenListOutput | None:
    """List the member's continuation tokens

     The most recent tokens (by server time), `limit` 1..50 (default 5). Tokens naming sensitive
    categories leave the device that wrote them only while the `cross_device` grant they name is in
    force; "the device that wrote them" is what the server recorded at write (the authenticated client
    and its `device_id`), so naming a `device_id` alone never makes another client that device, and the
    member's browser is never it. `withheld` counts the tokens kept from this reader. With `device_id`,
    the device's pending "also playing on your other device" notices are delivered (once) to the service
    client whose writes lost; the member's browser is never that device and gets none. The shell reads
    every surface; a surface its own.

    Args:
        member_id (UUID):
        device_id (None | str | Unset):
        limit (int | Unset):  Default: 5.
        surface (ListContinuationsSurface | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ContinuationTokenListOutput
    """

    return sync_detailed(
        member_id=member_id,
        client=client,
        device_id=device_id,
        limit=limit,
        surface=surface,
    ).parsed


async def asyncio_detailed(
    member_id: UUID,
    *,
    client: AuthenticatedClient,
    device_id: None | str | Unset = UNSET,
    limit: int | Unset = 5,
    surface: ListContinuationsSurface | Unset = UNSET,
) -> Response[ContinuationTokenListOutput]:
    """List the member's continuation tokens

     The most recent tokens (by server time), `limit` 1..50 (default 5). Tokens naming sensitive
    categories leave the device that wrote them only while the `cross_device` grant they name is in
    force; "the device that wrote them" is what the server recorded at write (the authenticated client
    and its `device_id`), so naming a `device_id` alone never makes another client that device, and the
    member's browser is never it. `withheld` counts the tokens kept from this reader. With `device_id`,
    the device's pending "also playing on your other device" notices are delivered (once) to the service
    client whose writes lost; the member's browser is never that device and gets none. The shell reads
    every surface; a surface its own.

    Args:
        member_id (UUID):
        device_id (None | str | Unset):
        limit (int | Unset):  Default: 5.
        surface (ListContinuationsSurface | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ContinuationTokenListOutput]
    """

    kwargs = _get_kwargs(
        member_id=member_id,
        device_id=device_id,
        limit=limit,
        surface=surface,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    member_id: UUID,
    *,
    client: AuthenticatedClient,
    device_id: None | str | Unset = UNSET,
    limit: int | Unset = 5,
    surface: ListContinuationsSurface | Unset = UNSET,
) -> ContinuationTokenListOutput | None:
    """List the member's continuation tokens

     The most recent tokens (by server time), `limit` 1..50 (default 5). Tokens naming sensitive
    categories leave the device that wrote them only while the `cross_device` grant they name is in
    force; "the device that wrote them" is what the server recorded at write (the authenticated client
    and its `device_id`), so naming a `device_id` alone never makes another client that device, and the
    member's browser is never it. `withheld` counts the tokens kept from this reader. With `device_id`,
    the device's pending "also playing on your other device" notices are delivered (once) to the service
    client whose writes lost; the member's browser is never that device and gets none. The shell reads
    every surface; a surface its own.

    Args:
        member_id (UUID):
        device_id (None | str | Unset):
        limit (int | Unset):  Default: 5.
        surface (ListContinuationsSurface | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ContinuationTokenListOutput
    """

    return (
        await asyncio_detailed(
            member_id=member_id,
            client=client,
            device_id=device_id,
            limit=limit,
            surface=surface,
        )
    ).parsed
