from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.step_up_input_request import StepUpInputRequest
from ...models.step_up_token import StepUpToken
from ...types import Response


def _get_kwargs(
    *,
    body: StepUpInputRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/me/tokens/step-up/",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> StepUpToken | None:
    if response.status_code == 201:
        response_201 = StepUpToken.from_dict(response.json())

        return response_201

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[StepUpToken]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: StepUpInputRequest,
) -> Response[StepUpToken]:
    """Mint a step-up token

     Mint a step-up token: re-enter your password to get a token that may forget
    (one memory, a category, a person, a conversation, a notebook) and ask for the full
    clear, for the next few minutes (`expires_at`, `IRIS_STEP_UP_SECONDS`). Every
    attempt counts against the sign-in budget of your address; a wrong password is 400
    with `fields.password`.

    Args:
        body (StepUpInputRequest): Refuses fields it does not know, so a client never believes it
            set one.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[StepUpToken]
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
    body: StepUpInputRequest,
) -> StepUpToken | None:
    """Mint a step-up token

     Mint a step-up token: re-enter your password to get a token that may forget
    (one memory, a category, a person, a conversation, a notebook) and ask for the full
    clear, for the next few minutes (`expires_at`, `IRIS_STEP_UP_SECONDS`). Every
    attempt counts against the sign-in budget of your address; a wrong password is 400
    with `fields.password`.

    Args:
        body (StepUpInputRequest): Refuses fields it does not know, so a client never believes it
            set one.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        StepUpToken
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: StepUpInputRequest,
) -> Response[StepUpToken]:
    """Mint a step-up token

     Mint a step-up token: re-enter your password to get a token that may forget
    (one memory, a category, a person, a conversation, a notebook) and ask for the full
    clear, for the next few minutes (`expires_at`, `IRIS_STEP_UP_SECONDS`). Every
    attempt counts against the sign-in budget of your address; a wrong password is 400
    with `fields.password`.

    Args:
        body (StepUpInputRequest): Refuses fields it does not know, so a client never believes it
            set one.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[StepUpToken]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: StepUpInputRequest,
) -> StepUpToken | None:
    """Mint a step-up token

     Mint a step-up token: re-enter your password to get a token that may forget
    (one memory, a category, a person, a conversation, a notebook) and ask for the full
    clear, for the next few minutes (`expires_at`, `IRIS_STEP_UP_SECONDS`). Every
    attempt counts against the sign-in budget of your address; a wrong password is 400
    with `fields.password`.

    Args:
        body (StepUpInputRequest): Refuses fields it does not know, so a client never believes it
            set one.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        StepUpToken
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
