from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.data_rights_submit_input_request import DataRightsSubmitInputRequest
from ...models.receipt import Receipt
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: DataRightsSubmitInputRequest,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/me/data-rights/",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Receipt | None:
    if response.status_code == 200:
        response_200 = Receipt.from_dict(response.json())

        return response_200

    if response.status_code == 201:
        response_201 = Receipt.from_dict(response.json())

        return response_201

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[Receipt]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: DataRightsSubmitInputRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[Receipt]:
    """Ask for a deletion, an export or an access report

     GET: my requests, newest first. POST: submit a delete, export or access request.

    One request of each kind is open at a time: a POST while one of its kind is open
    (submitted, verified or in progress) makes nothing and answers 200 with that open
    request, whatever its payload (a retry or a double-click gets the running request).
    A new request is a 201.

    Args:
        idempotency_key (str | Unset):
        body (DataRightsSubmitInputRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Receipt]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: DataRightsSubmitInputRequest,
    idempotency_key: str | Unset = UNSET,
) -> Receipt | None:
    """Ask for a deletion, an export or an access report

     GET: my requests, newest first. POST: submit a delete, export or access request.

    One request of each kind is open at a time: a POST while one of its kind is open
    (submitted, verified or in progress) makes nothing and answers 200 with that open
    request, whatever its payload (a retry or a double-click gets the running request).
    A new request is a 201.

    Args:
        idempotency_key (str | Unset):
        body (DataRightsSubmitInputRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Receipt
    """

    return sync_detailed(
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: DataRightsSubmitInputRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[Receipt]:
    """Ask for a deletion, an export or an access report

     GET: my requests, newest first. POST: submit a delete, export or access request.

    One request of each kind is open at a time: a POST while one of its kind is open
    (submitted, verified or in progress) makes nothing and answers 200 with that open
    request, whatever its payload (a retry or a double-click gets the running request).
    A new request is a 201.

    Args:
        idempotency_key (str | Unset):
        body (DataRightsSubmitInputRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Receipt]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: DataRightsSubmitInputRequest,
    idempotency_key: str | Unset = UNSET,
) -> Receipt | None:
    """Ask for a deletion, an export or an access report

     GET: my requests, newest first. POST: submit a delete, export or access request.

    One request of each kind is open at a time: a POST while one of its kind is open
    (submitted, verified or in progress) makes nothing and answers 200 with that open
    request, whatever its payload (a retry or a double-click gets the running request).
    A new request is a 201.

    Args:
        idempotency_key (str | Unset):
        body (DataRightsSubmitInputRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Receipt
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
