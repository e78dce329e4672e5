from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.member_scope_policies import MemberScopePolicies
from ...types import UNSET, Response, Unset


def _get_kwargs(
    member_id: UUID,
    *,
    tenant_id: None | Unset | UUID = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_tenant_id: None | str | Unset
    if isinstance(tenant_id, Unset):
        json_tenant_id = UNSET
    elif isinstance(tenant_id, UUID):
        json_tenant_id = str(tenant_id)
    else:
        json_tenant_id = tenant_id
    params["tenant_id"] = json_tenant_id

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/members/{member_id}/scope-policies/".format(
            member_id=quote(str(member_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> MemberScopePolicies | None:
    if response.status_code == 200:
        response_200 = MemberScopePolicies.from_dict(response.json())

        return response_200

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[MemberScopePolicies]:
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
    tenant_id: None | Unset | UUID = UNSET,
) -> Response[MemberScopePolicies]:
    """List the member's scope policies for this client

     The memory scopes of the member a surface serves, as the calling client's consumer
    may use them: a scope outside the consumer's allow-list is off with its note, and
    every consent or opt-out that stands in the way is named. A surface asks this before
    writing rather than learning it from a 422 `scope-suppressed`.

    404: no such member, or (with `tenant_id`) the member is not in that tenant.

    Args:
        member_id (UUID):
        tenant_id (None | Unset | UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[MemberScopePolicies]
    """

    kwargs = _get_kwargs(
        member_id=member_id,
        tenant_id=tenant_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    member_id: UUID,
    *,
    client: AuthenticatedClient,
    tenant_id: None | Unset | UUID = UNSET,
) -> MemberScopePolicies | None:
    """List the member's scope policies for this client

     The memory scopes of the member a surface serves, as the calling client's consumer
    may use them: a scope outside the consumer's allow-list is off with its note, and
    every consent or opt-out that stands in the way is named. A surface asks this before
    writing rather than learning it from a 422 `scope-suppressed`.

    404: no such member, or (with `tenant_id`) the member is not in that tenant.

    Args:
        member_id (UUID):
        tenant_id (None | Unset | UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        MemberScopePolicies
    """

    return sync_detailed(
        member_id=member_id,
        client=client,
        tenant_id=tenant_id,
    ).parsed


async def asyncio_detailed(
    member_id: UUID,
    *,
    client: AuthenticatedClient,
    tenant_id: None | Unset | UUID = UNSET,
) -> Response[MemberScopePolicies]:
    """List the member's scope policies for this client

     The memory scopes of the member a surface serves, as the calling client's consumer
    may use them: a scope outside the consumer's allow-list is off with its note, and
    every consent or opt-out that stands in the way is named. A surface asks this before
    writing rather than learning it from a 422 `scope-suppressed`.

    404: no such member, or (with `tenant_id`) the member is not in that tenant.

    Args:
        member_id (UUID):
        tenant_id (None | Unset | UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[MemberScopePolicies]
    """

    kwargs = _get_kwargs(
        member_id=member_id,
        tenant_id=tenant_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    member_id: UUID,
    *,
    client: AuthenticatedClient,
    tenant_id: None | Unset | UUID = UNSET,
) -> MemberScopePolicies | None:
    """List the member's scope policies for this client

     The memory scopes of the member a surface serves, as the calling client's consumer
    may use them: a scope outside the consumer's allow-list is off with its note, and
    every consent or opt-out that stands in the way is named. A surface asks this before
    writing rather than learning it from a 422 `scope-suppressed`.

    404: no such member, or (with `tenant_id`) the member is not in that tenant.

    Args:
        member_id (UUID):
        tenant_id (None | Unset | UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        MemberScopePolicies
    """

    return (
        await asyncio_detailed(
            member_id=member_id,
            client=client,
            tenant_id=tenant_id,
        )
    ).parsed
