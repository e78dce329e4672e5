from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.consent_event_output import ConsentEventOutput
from ...models.input_request import InputRequest
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: InputRequest,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/me/consents/events/",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ConsentEventOutput | None:
    if response.status_code == 200:
        response_200 = ConsentEventOutput.from_dict(response.json())

        return response_200

    if response.status_code == 201:
        response_201 = ConsentEventOutput.from_dict(response.json())

        return response_201

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ConsentEventOutput]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: InputRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[ConsentEventOutput]:
    """Grant, withdraw or deny a consent

     GET: the member's ledger, newest first. POST: append a grant, withdrawal or denial.

    Granting what is already granted (or denying what is denied) returns the event in
    force with 200 and writes nothing; withdrawing what is not granted is a 409.

    Args:
        idempotency_key (str | Unset):
        body (InputRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ConsentEventOutput]
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
    body: InputRequest,
    idempotency_key: str | Unset = UNSET,
) -> ConsentEventOutput | None:
    """Grant, withdraw or deny a consent

     GET: the member's ledger, newest first. POST: append a grant, withdrawal or denial.

    Granting what is already granted (or denying what is denied) returns the event in
    force with 200 and writes nothing; withdrawing what is not granted is a 409.

    Args:
        idempotency_key (str | Unset):
        body (InputRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ConsentEventOutput
    """

    return sync_detailed(
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: InputRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[ConsentEventOutput]:
    """Grant, withdraw or deny a consent

     GET: the member's ledger, newest first. POST: append a grant, withdrawal or denial.

    Granting what is already granted (or denying what is denied) returns the event in
    force with 200 and writes nothing; withdrawing what is not granted is a 409.

    Args:
        idempotency_key (str | Unset):
        body (InputRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ConsentEventOutput]
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
    body: InputRequest,
    idempotency_key: str | Unset = UNSET,
) -> ConsentEventOutput | None:
    """Grant, withdraw or deny a consent

     GET: the member's ledger, newest first. POST: append a grant, withdrawal or denial.

    Granting what is already granted (or denying what is denied) returns the event in
    force with 200 and writes nothing; withdrawing what is not granted is a 409.

    Args:
        idempotency_key (str | Unset):
        body (InputRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ConsentEventOutput
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
