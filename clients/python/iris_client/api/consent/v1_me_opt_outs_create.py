from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.opt_out_input_request import OptOutInputRequest
from ...models.opt_out_state_output import OptOutStateOutput
from ...types import Response


def _get_kwargs(
    *,
    body: OptOutInputRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/me/opt-outs/",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> OptOutStateOutput | None:
    if response.status_code == 200:
        response_200 = OptOutStateOutput.from_dict(response.json())

        return response_200

    if response.status_code == 201:
        response_201 = OptOutStateOutput.from_dict(response.json())

        return response_201

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[OptOutStateOutput]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: OptOutInputRequest,
) -> Response[OptOutStateOutput]:
    """Turn a kind of memory off or back on

     GET: the member's opt-outs now (every category, on or off) and the ledger's
    history, newest first. POST: turn one category off (`opted_out: true`) or back on.

    An opted-out category suppresses every memory scope that lists it
    (`GET /api/v1/me/scope-policies/`): surfaces' writes there are refused with 422
    `scope-suppressed`, and recall withholds what is stored there. Repeating the current
    state is a 200 that writes nothing; a change is a 201. While a full clear of my
    memory waits, the switches are put aside: a POST answers 409 `clear-pending`, nothing
    recorded.

    Args:
        body (OptOutInputRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[OptOutStateOutput]
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
    body: OptOutInputRequest,
) -> OptOutStateOutput | None:
    """Turn a kind of memory off or back on

     GET: the member's opt-outs now (every category, on or off) and the ledger's
    history, newest first. POST: turn one category off (`opted_out: true`) or back on.

    An opted-out category suppresses every memory scope that lists it
    (`GET /api/v1/me/scope-policies/`): surfaces' writes there are refused with 422
    `scope-suppressed`, and recall withholds what is stored there. Repeating the current
    state is a 200 that writes nothing; a change is a 201. While a full clear of my
    memory waits, the switches are put aside: a POST answers 409 `clear-pending`, nothing
    recorded.

    Args:
        body (OptOutInputRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        OptOutStateOutput
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: OptOutInputRequest,
) -> Response[OptOutStateOutput]:
    """Turn a kind of memory off or back on

     GET: the member's opt-outs now (every category, on or off) and the ledger's
    history, newest first. POST: turn one category off (`opted_out: true`) or back on.

    An opted-out category suppresses every memory scope that lists it
    (`GET /api/v1/me/scope-policies/`): surfaces' writes there are refused with 422
    `scope-suppressed`, and recall withholds what is stored there. Repeating the current
    state is a 200 that writes nothing; a change is a 201. While a full clear of my
    memory waits, the switches are put aside: a POST answers 409 `clear-pending`, nothing
    recorded.

    Args:
        body (OptOutInputRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[OptOutStateOutput]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: OptOutInputRequest,
) -> OptOutStateOutput | None:
    """Turn a kind of memory off or back on

     GET: the member's opt-outs now (every category, on or off) and the ledger's
    history, newest first. POST: turn one category off (`opted_out: true`) or back on.

    An opted-out category suppresses every memory scope that lists it
    (`GET /api/v1/me/scope-policies/`): surfaces' writes there are refused with 422
    `scope-suppressed`, and recall withholds what is stored there. Repeating the current
    state is a 200 that writes nothing; a change is a 201. While a full clear of my
    memory waits, the switches are put aside: a POST answers 409 `clear-pending`, nothing
    recorded.

    Args:
        body (OptOutInputRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        OptOutStateOutput
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
