from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.memory_forget_selected_input_request import MemoryForgetSelectedInputRequest
from ...models.memory_forget_selected_result import MemoryForgetSelectedResult
from ...types import Response


def _get_kwargs(
    *,
    body: MemoryForgetSelectedInputRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/me/memories/forget/",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> MemoryForgetSelectedResult | None:
    if response.status_code == 200:
        response_200 = MemoryForgetSelectedResult.from_dict(response.json())

        return response_200

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[MemoryForgetSelectedResult]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: MemoryForgetSelectedInputRequest,
) -> Response[MemoryForgetSelectedResult]:
    """Forget several of my memories at once, all or none

     Forget several of my memories at once, all or none: each is forgotten as one
    memory is (its text erased everywhere now). An id that is not one of my listed
    memories answers 404 for the whole request, and nothing is forgotten.

    Args:
        body (MemoryForgetSelectedInputRequest): Refuses fields it does not know, so a client
            never believes it set one.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[MemoryForgetSelectedResult]
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
    body: MemoryForgetSelectedInputRequest,
) -> MemoryForgetSelectedResult | None:
    """Forget several of my memories at once, all or none

     Forget several of my memories at once, all or none: each is forgotten as one
    memory is (its text erased everywhere now). An id that is not one of my listed
    memories answers 404 for the whole request, and nothing is forgotten.

    Args:
        body (MemoryForgetSelectedInputRequest): Refuses fields it does not know, so a client
            never believes it set one.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        MemoryForgetSelectedResult
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: MemoryForgetSelectedInputRequest,
) -> Response[MemoryForgetSelectedResult]:
    """Forget several of my memories at once, all or none

     Forget several of my memories at once, all or none: each is forgotten as one
    memory is (its text erased everywhere now). An id that is not one of my listed
    memories answers 404 for the whole request, and nothing is forgotten.

    Args:
        body (MemoryForgetSelectedInputRequest): Refuses fields it does not know, so a client
            never believes it set one.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[MemoryForgetSelectedResult]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: MemoryForgetSelectedInputRequest,
) -> MemoryForgetSelectedResult | None:
    """Forget several of my memories at once, all or none

     Forget several of my memories at once, all or none: each is forgotten as one
    memory is (its text erased everywhere now). An id that is not one of my listed
    memories answers 404 for the whole request, and nothing is forgotten.

    Args:
        body (MemoryForgetSelectedInputRequest): Refuses fields it does not know, so a client
            never believes it set one.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        MemoryForgetSelectedResult
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
