from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.continuation_resume_output import ContinuationResumeOutput
from ...types import UNSET, Response, Unset


def _get_kwargs(
    member_id: UUID,
    id: UUID,
    *,
    device_id: None | str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_device_id: None | str | Unset
    if isinstance(device_id, Unset):
        json_device_id = UNSET
    else:
        json_device_id = device_id
    params["device_id"] = json_device_id

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/members/{member_id}/continuation-tokens/{id}/resume/".format(
            member_id=quote(str(member_id), safe=""),
            id=quote(str(id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ContinuationResumeOutput | None:
    if response.status_code == 200:
        response_200 = ContinuationResumeOutput.from_dict(response.json())

        return response_200

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ContinuationResumeOutput]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    member_id: UUID,
    id: UUID,
    *,
    client: AuthenticatedClient,
    device_id: None | str | Unset = UNSET,
) -> Response[ContinuationResumeOutput]:
    """Resume a continuation token

     A token the read gate withholds (a sensitive token read by another client or device without the
    `cross_device` grant it names) is 404.

    Args:
        member_id (UUID):
        id (UUID):
        device_id (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ContinuationResumeOutput]
    """

    kwargs = _get_kwargs(
        member_id=member_id,
        id=id,
        device_id=device_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    member_id: UUID,
    id: UUID,
    *,
    client: AuthenticatedClient,
    device_id: None | str | Unset = UNSET,
) -> ContinuationResumeOutput | None:
    """Resume a continuation token

     A token the read gate withholds (a sensitive token read by another client or device without the
    `cross_device` grant it names) is 404.

    Args:
        member_id (UUID):
        id (UUID):
        device_id (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ContinuationResumeOutput
    """

    return sync_detailed(
        member_id=member_id,
        id=id,
        client=client,
        device_id=device_id,
    ).parsed


async def asyncio_detailed(
    member_id: UUID,
    id: UUID,
    *,
    client: AuthenticatedClient,
    device_id: None | str | Unset = UNSET,
) -> Response[ContinuationResumeOutput]:
    """Resume a continuation token

     A token the read gate withholds (a sensitive token read by another client or device without the
    `cross_device` grant it names) is 404.

    Args:
        member_id (UUID):
        id (UUID):
        device_id (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ContinuationResumeOutput]
    """

    kwargs = _get_kwargs(
        member_id=member_id,
        id=id,
        device_id=device_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    member_id: UUID,
    id: UUID,
    *,
    client: AuthenticatedClient,
    device_id: None | str | Unset = UNSET,
) -> ContinuationResumeOutput | None:
    """Resume a continuation token

     A token the read gate withholds (a sensitive token read by another client or device without the
    `cross_device` grant it names) is 404.

    Args:
        member_id (UUID):
        id (UUID):
        device_id (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ContinuationResumeOutput
    """

    return (
        await asyncio_detailed(
            member_id=member_id,
            id=id,
            client=client,
            device_id=device_id,
        )
    ).parsed
