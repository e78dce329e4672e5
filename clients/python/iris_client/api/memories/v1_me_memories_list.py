from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.paginated_memory_entry_list import PaginatedMemoryEntryList
from ...models.v1_me_memories_list_category import (
    V1MeMemoriesListCategory,
)
from ...models.v1_me_memories_list_lifecycle import (
    V1MeMemoriesListLifecycle,
)
from ...models.v1_me_memories_list_origin import (
    V1MeMemoriesListOrigin,
)
from ...models.v1_me_memories_list_scope_kind import (
    V1MeMemoriesListScopeKind,
)
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    category: V1MeMemoriesListCategory | Unset = UNSET,
    cursor: str | Unset = UNSET,
    lifecycle: V1MeMemoriesListLifecycle | Unset = UNSET,
    origin: V1MeMemoriesListOrigin | Unset = UNSET,
    page_size: int | Unset = UNSET,
    q: str | Unset = UNSET,
    scope_kind: V1MeMemoriesListScopeKind | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_category: str | Unset = UNSET
    if not isinstance(category, Unset):
        json_category = category

    params["category"] = json_category

    params["cursor"] = cursor

    json_lifecycle: str | Unset = UNSET
    if not isinstance(lifecycle, Unset):
        json_lifecycle = lifecycle

    params["lifecycle"] = json_lifecycle

    json_origin: str | Unset = UNSET
    if not isinstance(origin, Unset):
        json_origin = origin

    params["origin"] = json_origin

    params["page_size"] = page_size

    params["q"] = q

    json_scope_kind: str | Unset = UNSET
    if not isinstance(scope_kind, Unset):
        json_scope_kind = scope_kind

    params["scope_kind"] = json_scope_kind

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/me/memories/",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> PaginatedMemoryEntryList | None:
    if response.status_code == 200:
        response_200 = PaginatedMemoryEntryList.from_dict(response.json())

        return response_200

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[PaginatedMemoryEntryList]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    category: V1MeMemoriesListCategory | Unset = UNSET,
    cursor: str | Unset = UNSET,
    lifecycle: V1MeMemoriesListLifecycle | Unset = UNSET,
    origin: V1MeMemoriesListOrigin | Unset = UNSET,
    page_size: int | Unset = UNSET,
    q: str | Unset = UNSET,
    scope_kind: V1MeMemoriesListScopeKind | Unset = UNSET,
) -> Response[PaginatedMemoryEntryList]:
    """My memories, most recently changed first

     GET: my memories, most recently changed first (forgotten ones excluded).
    POST: state a memory myself (origin `user-stated`, scope `user_id` is mine).

    A POST goes through the same consent-checked write path as a surface's remember:
    off-the-record, scope policy, the privacy storage gate and the conflict ladder.

    Args:
        category (V1MeMemoriesListCategory | Unset):
        cursor (str | Unset):
        lifecycle (V1MeMemoriesListLifecycle | Unset):
        origin (V1MeMemoriesListOrigin | Unset):
        page_size (int | Unset):
        q (str | Unset):
        scope_kind (V1MeMemoriesListScopeKind | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PaginatedMemoryEntryList]
    """

    kwargs = _get_kwargs(
        category=category,
        cursor=cursor,
        lifecycle=lifecycle,
        origin=origin,
        page_size=page_size,
        q=q,
        scope_kind=scope_kind,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    category: V1MeMemoriesListCategory | Unset = UNSET,
    cursor: str | Unset = UNSET,
    lifecycle: V1MeMemoriesListLifecycle | Unset = UNSET,
    origin: V1MeMemoriesListOrigin | Unset = UNSET,
    page_size: int | Unset = UNSET,
    q: str | Unset = UNSET,
    scope_kind: V1MeMemoriesListScopeKind | Unset = UNSET,
) -> PaginatedMemoryEntryList | None:
    """My memories, most recently changed first

     GET: my memories, most recently changed first (forgotten ones excluded).
    POST: state a memory myself (origin `user-stated`, scope `user_id` is mine).

    A POST goes through the same consent-checked write path as a surface's remember:
    off-the-record, scope policy, the privacy storage gate and the conflict ladder.

    Args:
        category (V1MeMemoriesListCategory | Unset):
        cursor (str | Unset):
        lifecycle (V1MeMemoriesListLifecycle | Unset):
        origin (V1MeMemoriesListOrigin | Unset):
        page_size (int | Unset):
        q (str | Unset):
        scope_kind (V1MeMemoriesListScopeKind | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PaginatedMemoryEntryList
    """

    return sync_detailed(
        client=client,
        category=category,
        cursor=cursor,
        lifecycle=lifecycle,
        origin=origin,
        page_size=page_size,
        q=q,
        scope_kind=scope_kind,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    category: V1MeMemoriesListCategory | Unset = UNSET,
    cursor: str | Unset = UNSET,
    lifecycle: V1MeMemoriesListLifecycle | Unset = UNSET,
    origin: V1MeMemoriesListOrigin | Unset = UNSET,
    page_size: int | Unset = UNSET,
    q: str | Unset = UNSET,
    scope_kind: V1MeMemoriesListScopeKind | Unset = UNSET,
) -> Response[PaginatedMemoryEntryList]:
    """My memories, most recently changed first

     GET: my memories, most recently changed first (forgotten ones excluded).
    POST: state a memory myself (origin `user-stated`, scope `user_id` is mine).

    A POST goes through the same consent-checked write path as a surface's remember:
    off-the-record, scope policy, the privacy storage gate and the conflict ladder.

    Args:
        category (V1MeMemoriesListCategory | Unset):
        cursor (str | Unset):
        lifecycle (V1MeMemoriesListLifecycle | Unset):
        origin (V1MeMemoriesListOrigin | Unset):
        page_size (int | Unset):
        q (str | Unset):
        scope_kind (V1MeMemoriesListScopeKind | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PaginatedMemoryEntryList]
    """

    kwargs = _get_kwargs(
        category=category,
        cursor=cursor,
        lifecycle=lifecycle,
        origin=origin,
        page_size=page_size,
        q=q,
        scope_kind=scope_kind,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    category: V1MeMemoriesListCategory | Unset = UNSET,
    cursor: str | Unset = UNSET,
    lifecycle: V1MeMemoriesListLifecycle | Unset = UNSET,
    origin: V1MeMemoriesListOrigin | Unset = UNSET,
    page_size: int | Unset = UNSET,
    q: str | Unset = UNSET,
    scope_kind: V1MeMemoriesListScopeKind | Unset = UNSET,
) -> PaginatedMemoryEntryList | None:
    """My memories, most recently changed first

     GET: my memories, most recently changed first (forgotten ones excluded).
    POST: state a memory myself (origin `user-stated`, scope `user_id` is mine).

    A POST goes through the same consent-checked write path as a surface's remember:
    off-the-record, scope policy, the privacy storage gate and the conflict ladder.

    Args:
        category (V1MeMemoriesListCategory | Unset):
        cursor (str | Unset):
        lifecycle (V1MeMemoriesListLifecycle | Unset):
        origin (V1MeMemoriesListOrigin | Unset):
        page_size (int | Unset):
        q (str | Unset):
        scope_kind (V1MeMemoriesListScopeKind | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PaginatedMemoryEntryList
    """

    return (
        await asyncio_detailed(
            client=client,
            category=category,
            cursor=cursor,
            lifecycle=lifecycle,
            origin=origin,
            page_size=page_size,
            q=q,
            scope_kind=scope_kind,
        )
    ).parsed
