from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.entity_output import EntityOutput
from ...models.v1_me_entities_list_kind import V1MeEntitiesListKind
from ...models.v1_me_entities_list_state import (
    V1MeEntitiesListState,
)
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    kind: V1MeEntitiesListKind | Unset = UNSET,
    state: V1MeEntitiesListState | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_kind: str | Unset = UNSET
    if not isinstance(kind, Unset):
        json_kind = kind

    params["kind"] = json_kind

    json_state: str | Unset = UNSET
    if not isinstance(state, Unset):
        json_state = state

    params["state"] = json_state

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/me/entities/",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> list[EntityOutput] | None:
    if response.status_code == 200:
        response_200 = []
        _response_200 = response.json()
        for response_200_item_data in _response_200:
            response_200_item = EntityOutput.from_dict(response_200_item_data)

            response_200.append(response_200_item)

        return response_200

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[list[EntityOutput]]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    kind: V1MeEntitiesListKind | Unset = UNSET,
    state: V1MeEntitiesListState | Unset = UNSET,
) -> Response[list[EntityOutput]]:
    """The people and topics Iris holds memories about (not the ones you had it forget)

     The people and topics Iris holds memories about (not the ones you had it forget).

    Args:
        kind (V1MeEntitiesListKind | Unset):
        state (V1MeEntitiesListState | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[list[EntityOutput]]
    """

    kwargs = _get_kwargs(
        kind=kind,
        state=state,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    kind: V1MeEntitiesListKind | Unset = UNSET,
    state: V1MeEntitiesListState | Unset = UNSET,
) -> list[EntityOutput] | None:
    """The people and topics Iris holds memories about (not the ones you had it forget)

     The people and topics Iris holds memories about (not the ones you had it forget).

    Args:
        kind (V1MeEntitiesListKind | Unset):
        state (V1MeEntitiesListState | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        list[EntityOutput]
    """

    return sync_detailed(
        client=client,
        kind=kind,
        state=state,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    kind: V1MeEntitiesListKind | Unset = UNSET,
    state: V1MeEntitiesListState | Unset = UNSET,
) -> Response[list[EntityOutput]]:
    """The people and topics Iris holds memories about (not the ones you had it forget)

     The people and topics Iris holds memories about (not the ones you had it forget).

    Args:
        kind (V1MeEntitiesListKind | Unset):
        state (V1MeEntitiesListState | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[list[EntityOutput]]
    """

    kwargs = _get_kwargs(
        kind=kind,
        state=state,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    kind: V1MeEntitiesListKind | Unset = UNSET,
    state: V1MeEntitiesListState | Unset = UNSET,
) -> list[EntityOutput] | None:
    """The people and topics Iris holds memories about (not the ones you had it forget)

     The people and topics Iris holds memories about (not the ones you had it forget).

    Args:
        kind (V1MeEntitiesListKind | Unset):
        state (V1MeEntitiesListState | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        list[EntityOutput]
    """

    return (
        await asyncio_detailed(
            client=client,
            kind=kind,
            state=state,
        )
    ).parsed
