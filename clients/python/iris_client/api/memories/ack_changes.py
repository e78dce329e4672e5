from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.ack import Ack
from ...models.change_feed_ack_request import ChangeFeedAckRequest
from ...types import Response


def _get_kwargs(
    *,
    body: ChangeFeedAckRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/events/ack/",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Ack | None:
    if response.status_code == 200:
        response_200 = Ack.from_dict(response.json())

        return response_200

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[Ack]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: ChangeFeedAckRequest,
) -> Response[Ack]:
    """Acknowledge the changes applied

     Every event up to this cursor is applied by this surface (shown to the member as
    acknowledged). Idempotent.

    Args:
        body (ChangeFeedAckRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Ack]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: ChangeFeedAckRequest,
) -> Ack | None:
    """Acknowledge the changes applied

     Every event up to this cursor is applied by this surface (shown to the member as
    acknowledged). Idempotent.

    Args:
        body (ChangeFeedAckRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Ack
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: ChangeFeedAckRequest,
) -> Response[Ack]:
    """Acknowledge the changes applied

     Every event up to this cursor is applied by this surface (shown to the member as
    acknowledged). Idempotent.

    Args:
        body (ChangeFeedAckRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Ack]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: ChangeFeedAckRequest,
) -> Ack | None:
    """Acknowledge the changes applied

     Every event up to this cursor is applied by this surface (shown to the member as
    acknowledged). Idempotent.

    Args:
        body (ChangeFeedAckRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Ack
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
