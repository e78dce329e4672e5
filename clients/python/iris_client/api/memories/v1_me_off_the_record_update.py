from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.off_the_record_input_request import OffTheRecordInputRequest
from ...models.off_the_record_state import OffTheRecordState
from ...types import Response


def _get_kwargs(
    *,
    body: OffTheRecordInputRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/api/v1/me/off-the-record/",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> OffTheRecordState | None:
    if response.status_code == 200:
        response_200 = OffTheRecordState.from_dict(response.json())

        return response_200

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[OffTheRecordState]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: OffTheRecordInputRequest,
) -> Response[OffTheRecordState]:
    """Go off the record, or back on

     Off the record: while active, nothing is remembered, and writes answer 422 `paused`.

    Without `session_id` the switch covers every session; with one, only that session.
    GET reports whether remembering is paused now (for that session, if given). While a
    full clear of my memory waits, the switch is put aside: 409 `clear-pending`.

    Args:
        body (OffTheRecordInputRequest): Refuses fields it does not know, so a client never
            believes it set one.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[OffTheRecordState]
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
    body: OffTheRecordInputRequest,
) -> OffTheRecordState | None:
    """Go off the record, or back on

     Off the record: while active, nothing is remembered, and writes answer 422 `paused`.

    Without `session_id` the switch covers every session; with one, only that session.
    GET reports whether remembering is paused now (for that session, if given). While a
    full clear of my memory waits, the switch is put aside: 409 `clear-pending`.

    Args:
        body (OffTheRecordInputRequest): Refuses fields it does not know, so a client never
            believes it set one.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        OffTheRecordState
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: OffTheRecordInputRequest,
) -> Response[OffTheRecordState]:
    """Go off the record, or back on

     Off the record: while active, nothing is remembered, and writes answer 422 `paused`.

    Without `session_id` the switch covers every session; with one, only that session.
    GET reports whether remembering is paused now (for that session, if given). While a
    full clear of my memory waits, the switch is put aside: 409 `clear-pending`.

    Args:
        body (OffTheRecordInputRequest): Refuses fields it does not know, so a client never
            believes it set one.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[OffTheRecordState]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: OffTheRecordInputRequest,
) -> OffTheRecordState | None:
    """Go off the record, or back on

     Off the record: while active, nothing is remembered, and writes answer 422 `paused`.

    Without `session_id` the switch covers every session; with one, only that session.
    GET reports whether remembering is paused now (for that session, if given). While a
    full clear of my memory waits, the switch is put aside: 409 `clear-pending`.

    Args:
        body (OffTheRecordInputRequest): Refuses fields it does not know, so a client never
            believes it set one.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        OffTheRecordState
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
