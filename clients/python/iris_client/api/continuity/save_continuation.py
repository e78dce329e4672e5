from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.continuation_token_request import ContinuationTokenRequest
from ...models.continuation_token_write_output import ContinuationTokenWriteOutput
from ...types import UNSET, Response, Unset


def _get_kwargs(
    member_id: UUID,
    *,
    body: ContinuationTokenRequest,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/api/v1/members/{member_id}/continuation-tokens/".format(
            member_id=quote(str(member_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ContinuationTokenWriteOutput | None:
    if response.status_code == 200:
        response_200 = ContinuationTokenWriteOutput.from_dict(response.json())

        return response_200

    if response.status_code == 201:
        response_201 = ContinuationTokenWriteOutput.from_dict(response.json())

        return response_201

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ContinuationTokenWriteOutput]:
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
    body: ContinuationTokenRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[ContinuationTokenWriteOutput]:
    """Save the member's continuation token for this surface

     Write the member's token for the caller's own surface (else 403). Idempotent by the body's
    `idempotency_key` (an `Idempotency-Key` header, when sent, must equal it): the same key and token
    answer with the first answer, status included (header `Idempotent-Replayed: true`); the same key
    with another token is 409. One token per surface and scope key: the most recent write by server time
    wins; a device that loses a close race gets a notice on its next read. A surface the member paused
    is refused (422 `surface-paused`).

    Args:
        member_id (UUID):
        idempotency_key (str | Unset):
        body (ContinuationTokenRequest): A member's place on a surface, as references and posture
            only; never content.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ContinuationTokenWriteOutput]
    """

    kwargs = _get_kwargs(
        member_id=member_id,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    member_id: UUID,
    *,
    client: AuthenticatedClient,
    body: ContinuationTokenRequest,
    idempotency_key: str | Unset = UNSET,
) -> ContinuationTokenWriteOutput | None:
    """Save the member's continuation token for this surface

     Write the member's token for the caller's own surface (else 403). Idempotent by the body's
    `idempotency_key` (an `Idempotency-Key` header, when sent, must equal it): the same key and token
    answer with the first answer, status included (header `Idempotent-Replayed: true`); the same key
    with another token is 409. One token per surface and scope key: the most recent write by server time
    wins; a device that loses a close race gets a notice on its next read. A surface the member paused
    is refused (422 `surface-paused`).

    Args:
        member_id (UUID):
        idempotency_key (str | Unset):
        body (ContinuationTokenRequest): A member's place on a surface, as references and posture
            only; never content.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ContinuationTokenWriteOutput
    """

    return sync_detailed(
        member_id=member_id,
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    member_id: UUID,
    *,
    client: AuthenticatedClient,
    body: ContinuationTokenRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[ContinuationTokenWriteOutput]:
    """Save the member's continuation token for this surface

     Write the member's token for the caller's own surface (else 403). Idempotent by the body's
    `idempotency_key` (an `Idempotency-Key` header, when sent, must equal it): the same key and token
    answer with the first answer, status included (header `Idempotent-Replayed: true`); the same key
    with another token is 409. One token per surface and scope key: the most recent write by server time
    wins; a device that loses a close race gets a notice on its next read. A surface the member paused
    is refused (422 `surface-paused`).

    Args:
        member_id (UUID):
        idempotency_key (str | Unset):
        body (ContinuationTokenRequest): A member's place on a surface, as references and posture
            only; never content.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ContinuationTokenWriteOutput]
    """

    kwargs = _get_kwargs(
        member_id=member_id,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    member_id: UUID,
    *,
    client: AuthenticatedClient,
    body: ContinuationTokenRequest,
    idempotency_key: str | Unset = UNSET,
) -> ContinuationTokenWriteOutput | None:
    """Save the member's continuation token for this surface

     Write the member's token for the caller's own surface (else 403). Idempotent by the body's
    `idempotency_key` (an `Idempotency-Key` header, when sent, must equal it): the same key and token
    answer with the first answer, status included (header `Idempotent-Replayed: true`); the same key
    with another token is 409. One token per surface and scope key: the most recent write by server time
    wins; a device that loses a close race gets a notice on its next read. A surface the member paused
    is refused (422 `surface-paused`).

    Args:
        member_id (UUID):
        idempotency_key (str | Unset):
        body (ContinuationTokenRequest): A member's place on a surface, as references and posture
            only; never content.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ContinuationTokenWriteOutput
    """

    return (
        await asyncio_detailed(
            member_id=member_id,
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
