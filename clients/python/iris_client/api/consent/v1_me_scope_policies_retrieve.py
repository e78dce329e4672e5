from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.my_scope_policies import MyScopePolicies
from ...types import Response


def _get_kwargs() -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/me/scope-policies/",
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> MyScopePolicies | None:
    if response.status_code == 200:
        response_200 = MyScopePolicies.from_dict(response.json())

        return response_200

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[MyScopePolicies]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
) -> Response[MyScopePolicies]:
    """The eleven memory scopes for the signed-in member

     The eleven memory scopes for the signed-in member: on or off, the mode, and the
    notes saying why a scope is off (change them through `/api/v1/me/consents/events/`
    and `/api/v1/me/opt-outs/`).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[MyScopePolicies]
    """

    kwargs = _get_kwargs()

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
) -> MyScopePolicies | None:
    """The eleven memory scopes for the signed-in member

     The eleven memory scopes for the signed-in member: on or off, the mode, and the
    notes saying why a scope is off (change them through `/api/v1/me/consents/events/`
    and `/api/v1/me/opt-outs/`).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        MyScopePolicies
    """

    return sync_detailed(
        client=client,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
) -> Response[MyScopePolicies]:
    """The eleven memory scopes for the signed-in member

     The eleven memory scopes for the signed-in member: on or off, the mode, and the
    notes saying why a scope is off (change them through `/api/v1/me/consents/events/`
    and `/api/v1/me/opt-outs/`).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[MyScopePolicies]
    """

    kwargs = _get_kwargs()

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
) -> MyScopePolicies | None:
    """The eleven memory scopes for the signed-in member

     The eleven memory scopes for the signed-in member: on or off, the mode, and the
    notes saying why a scope is off (change them through `/api/v1/me/consents/events/`
    and `/api/v1/me/opt-outs/`).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        MyScopePolicies
    """

    return (
        await asyncio_detailed(
            client=client,
        )
    ).parsed
