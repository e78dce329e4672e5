from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.paginated_consent_event_output_list import PaginatedConsentEventOutputList
from ...models.v1_me_consents_events_list_consent_type import (
    V1MeConsentsEventsListConsentType,
)
from ...models.v1_me_consents_events_list_kind import (
    V1MeConsentsEventsListKind,
)
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    consent_type: V1MeConsentsEventsListConsentType | Unset = UNSET,
    cursor: str | Unset = UNSET,
    kind: V1MeConsentsEventsListKind | Unset = UNSET,
    page_size: int | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_consent_type: str | Unset = UNSET
    if not isinstance(consent_type, Unset):
        json_consent_type = consent_type

    params["consent_type"] = json_consent_type

    params["cursor"] = cursor

    json_kind: str | Unset = UNSET
    if not isinstance(kind, Unset):
        json_kind = kind

    params["kind"] = json_kind

    params["page_size"] = page_size

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/me/consents/events/",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> PaginatedConsentEventOutputList | None:
    if response.status_code == 200:
        response_200 = PaginatedConsentEventOutputList.from_dict(response.json())

        return response_200

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[PaginatedConsentEventOutputList]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    consent_type: V1MeConsentsEventsListConsentType | Unset = UNSET,
    cursor: str | Unset = UNSET,
    kind: V1MeConsentsEventsListKind | Unset = UNSET,
    page_size: int | Unset = UNSET,
) -> Response[PaginatedConsentEventOutputList]:
    """My consent ledger, newest first

     GET: the member's ledger, newest first. POST: append a grant, withdrawal or denial.

    Granting what is already granted (or denying what is denied) returns the event in
    force with 200 and writes nothing; withdrawing what is not granted is a 409.

    Args:
        consent_type (V1MeConsentsEventsListConsentType | Unset):
        cursor (str | Unset):
        kind (V1MeConsentsEventsListKind | Unset):
        page_size (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PaginatedConsentEventOutputList]
    """

    kwargs = _get_kwargs(
        consent_type=consent_type,
        cursor=cursor,
        kind=kind,
        page_size=page_size,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    consent_type: V1MeConsentsEventsListConsentType | Unset = UNSET,
    cursor: str | Unset = UNSET,
    kind: V1MeConsentsEventsListKind | Unset = UNSET,
    page_size: int | Unset = UNSET,
) -> PaginatedConsentEventOutputList | None:
    """My consent ledger, newest first

     GET: the member's ledger, newest first. POST: append a grant, withdrawal or denial.

    Granting what is already granted (or denying what is denied) returns the event in
    force with 200 and writes nothing; withdrawing what is not granted is a 409.

    Args:
        consent_type (V1MeConsentsEventsListConsentType | Unset):
        cursor (str | Unset):
        kind (V1MeConsentsEventsListKind | Unset):
        page_size (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PaginatedConsentEventOutputList
    """

    return sync_detailed(
        client=client,
        consent_type=consent_type,
        cursor=cursor,
        kind=kind,
        page_size=page_size,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    consent_type: V1MeConsentsEventsListConsentType | Unset = UNSET,
    cursor: str | Unset = UNSET,
    kind: V1MeConsentsEventsListKind | Unset = UNSET,
    page_size: int | Unset = UNSET,
) -> Response[PaginatedConsentEventOutputList]:
    """My consent ledger, newest first

     GET: the member's ledger, newest first. POST: append a grant, withdrawal or denial.

    Granting what is already granted (or denying what is denied) returns the event in
    force with 200 and writes nothing; withdrawing what is not granted is a 409.

    Args:
        consent_type (V1MeConsentsEventsListConsentType | Unset):
        cursor (str | Unset):
        kind (V1MeConsentsEventsListKind | Unset):
        page_size (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PaginatedConsentEventOutputList]
    """

    kwargs = _get_kwargs(
        consent_type=consent_type,
        cursor=cursor,
        kind=kind,
        page_size=page_size,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    consent_type: V1MeConsentsEventsListConsentType | Unset = UNSET,
    cursor: str | Unset = UNSET,
    kind: V1MeConsentsEventsListKind | Unset = UNSET,
    page_size: int | Unset = UNSET,
) -> PaginatedConsentEventOutputList | None:
    """My consent ledger, newest first

     GET: the member's ledger, newest first. POST: append a grant, withdrawal or denial.

    Granting what is already granted (or denying what is denied) returns the event in
    force with 200 and writes nothing; withdrawing what is not granted is a 409.

    Args:
        consent_type (V1MeConsentsEventsListConsentType | Unset):
        cursor (str | Unset):
        kind (V1MeConsentsEventsListKind | Unset):
        page_size (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PaginatedConsentEventOutputList
    """

    return (
        await asyncio_detailed(
            client=client,
            consent_type=consent_type,
            cursor=cursor,
            kind=kind,
            page_size=page_size,
        )
    ).parsed
