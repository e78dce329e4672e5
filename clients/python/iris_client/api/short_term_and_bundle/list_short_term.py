from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.list_short_term_context import ListShortTermContext
from ...models.list_short_term_scope_kind import (
    ListShortTermScopeKind,
)
from ...models.paginated_short_term_output_list import PaginatedShortTermOutputList
from ...types import UNSET, Response, Unset


def _get_kwargs(
    member_id: UUID,
    *,
    context: ListShortTermContext | Unset = "general",
    cursor: None | str | Unset = UNSET,
    page_size: int | None | Unset = UNSET,
    scope_id: str,
    scope_kind: ListShortTermScopeKind | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_context: str | Unset = UNSET
    if not isinstance(context, Unset):
        json_context = context

    params["context"] = json_context

    json_cursor: None | str | Unset
    if isinstance(cursor, Unset):
        json_cursor = UNSET
    else:
        json_cursor = cursor
    params["cursor"] = json_cursor

    json_page_size: int | None | Unset
    if isinstance(page_size, Unset):
        json_page_size = UNSET
    else:
        json_page_size = page_size
    params["page_size"] = json_page_size

    params["scope_id"] = scope_id

    json_scope_kind: str | Unset = UNSET
    if not isinstance(scope_kind, Unset):
        json_scope_kind = scope_kind

    params["scope_kind"] = json_scope_kind

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/members/{member_id}/short-term/".format(
            member_id=quote(str(member_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> PaginatedShortTermOutputList | None:
    if response.status_code == 200:
        response_200 = PaginatedShortTermOutputList.from_dict(response.json())

        return response_200

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[PaginatedShortTermOutputList]:
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
    context: ListShortTermContext | Unset = "general",
    cursor: None | str | Unset = UNSET,
    page_size: int | None | Unset = UNSET,
    scope_id: str,
    scope_kind: ListShortTermScopeKind | Unset = UNSET,
) -> Response[PaginatedShortTermOutputList]:
    """List a scope's short-term rows

     Every row passes the read gate for the calling client: the member's consents (`data_processing`; a
    sensitive category needs its own consent and a `context` in which it may surface, e.g.
    `mental_health` only in `health`, `safety` or `crisis`), a pending full clear and off the record. A
    row it withholds is absent; the page's `withheld` object counts the rows withheld from it by reason
    (e.g. `sensitive-category-outside-relevant-context`), so a page may be shorter than `page_size`
    while `next` still leads on.

    What each service client may claim comes from its consumer (narrowed per client by a platform
    operator); a `surface`, `context` or scope kind outside it is **403** with `error.code` `surface-
    not-allowed`, `context-not-allowed` or `consumer-not-allowed-for-scope`, never silently changed.

    | consumer | surfaces (budgets) | contexts | scope kinds (read, write) | why |
    |---|---|---|---|---|
    | `assistant` | `assistant`, `shell` | `crisis`, `financial`, `general`, `health`, `identity`,
    `legal`, `relationship`, `safety`, `spiritual` | `crisis`, `notebook`, `pose`, `profile`, `scene`,
    `session` | The member's general conversational surface: it routes into every domain, so it may
    claim every context; its own budget (12) or the shell's. |
    | `shell` | `shell` | `crisis`, `general`, `safety` | `crisis`, `notebook`, `profile`, `session` |
    Intent routing with a three-entry budget: it hands sensitive topics to the domain surfaces and keeps
    only the safety frame (it is on the crisis blueprint). |
    | `notebook` | `notebook`, `shell` | `general` | `notebook`, `profile`, `session`, `tenant` | Study
    notebooks: the only surface with the notebook budget (999, rationales shown); notes are not a
    sensitive context. |
    | `tara` | `shell`, `tara` | `general`, `health`, `safety` | `notebook`, `pose`, `profile`, `scene`,
    `session` | Recovery companion: the seed's own example of health memory surfacing ("in Tara
    recovery"), with the safety frame. |
    | `veritas` | `shell`, `veritas` | `general` | `notebook`, `profile`, `session` | Briefings: the
    seed's own example of where health memory never surfaces; no sensitive context at all. |
    | `nyx` | `nyx`, `shell` | `general` | `notebook`, `profile`, `session` | A domain product the seed
    gives no sensitive role: general context only. |
    | `arete` | `arete`, `shell` | `general` | `notebook`, `profile`, `session` | A domain product the
    seed gives no sensitive role: general context only. |
    | `nisaba` | `nisaba`, `shell` | `general` | `notebook`, `profile`, `session` | Editions and
    reading: general context only. |
    | `metis` | `metis`, `shell` | `general` | `notebook`, `profile`, `session`, `tenant` | Courses and
    institutional learner state: general context only. |
    | `studio` | `shell`, `studio` | `general`, `health` | `notebook`, `pose`, `profile`, `scene`,
    `session` | On the pose blueprint: pose alignment is health-context memory, so it needs the health
    context to use what it may read. |
    | `psyche` | `psyche`, `shell` | `crisis`, `general`, `safety` | `crisis`, `profile`, `scene`,
    `session` | The real-time runtime, on the crisis blueprint: the safety frame only. |
    | `living-scene` | `living-scene`, `shell` | `general` | `profile`, `scene`, `session` | Scene
    rendering: general context only. |

    Args:
        member_id (UUID):
        context (ListShortTermContext | Unset):  Default: 'general'.
        cursor (None | str | Unset):
        page_size (int | None | Unset):
        scope_id (str):
        scope_kind (ListShortTermScopeKind | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PaginatedShortTermOutputList]
    """

    kwargs = _get_kwargs(
        member_id=member_id,
        context=context,
        cursor=cursor,
        page_size=page_size,
        scope_id=scope_id,
        scope_kind=scope_kind,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    member_id: UUID,
    *,
    client: AuthenticatedClient,
    context: ListShortTermContext | Unset = "general",
    cursor: None | str | Unset = UNSET,
    page_size: int | None | Unset = UNSET,
    scope_id: str,
    scope_kind: ListShortTermScopeKind | Unset = UNSET,
) -> PaginatedShortTermOutputList | None:
    """List a scope's short-term rows

     Every row passes the read gate for the calling client: the member's consents (`data_processing`; a
    sensitive category needs its own consent and a `context` in which it may surface, e.g.
    `mental_health` only in `health`, `safety` or `crisis`), a pending full clear and off the record. A
    row it withholds is absent; the page's `withheld` object counts the rows withheld from it by reason
    (e.g. `sensitive-category-outside-relevant-context`), so a page may be shorter than `page_size`
    while `next` still leads on.

    What each service client may claim comes from its consumer (narrowed per client by a platform
    operator); a `surface`, `context` or scope kind outside it is **403** with `error.code` `surface-
    not-allowed`, `context-not-allowed` or `consumer-not-allowed-for-scope`, never silently changed.

    | consumer | surfaces (budgets) | contexts | scope kinds (read, write) | why |
    |---|---|---|---|---|
    | `assistant` | `assistant`, `shell` | `crisis`, `financial`, `general`, `health`, `identity`,
    `legal`, `relationship`, `safety`, `spiritual` | `crisis`, `notebook`, `pose`, `profile`, `scene`,
    `session` | The member's general conversational surface: it routes into every domain, so it may
    claim every context; its own budget (12) or the shell's. |
    | `shell` | `shell` | `crisis`, `general`, `safety` | `crisis`, `notebook`, `profile`, `session` |
    Intent routing with a three-entry budget: it hands sensitive topics to the domain surfaces and keeps
    only the safety frame (it is on the crisis blueprint). |
    | `notebook` | `notebook`, `shell` | `general` | `notebook`, `profile`, `session`, `tenant` | Study
    notebooks: the only surface with the notebook budget (999, rationales shown); notes are not a
    sensitive context. |
    | `tara` | `shell`, `tara` | `general`, `health`, `safety` | `notebook`, `pose`, `profile`, `scene`,
    `session` | Recovery companion: the seed's own example of health memory surfacing ("in Tara
    recovery"), with the safety frame. |
    | `veritas` | `shell`, `veritas` | `general` | `notebook`, `profile`, `session` | Briefings: the
    seed's own example of where health memory never surfaces; no sensitive context at all. |
    | `nyx` | `nyx`, `shell` | `general` | `notebook`, `profile`, `session` | A domain product the seed
    gives no sensitive role: general context only. |
    | `arete` | `arete`, `shell` | `general` | `notebook`, `profile`, `session` | A domain product the
    seed gives no sensitive role: general context only. |
    | `nisaba` | `nisaba`, `shell` | `general` | `notebook`, `profile`, `session` | Editions and
    reading: general context only. |
    | `metis` | `metis`, `shell` | `general` | `notebook`, `profile`, `session`, `tenant` | Courses and
    institutional learner state: general context only. |
    | `studio` | `shell`, `studio` | `general`, `health` | `notebook`, `pose`, `profile`, `scene`,
    `session` | On the pose blueprint: pose alignment is health-context memory, so it needs the health
    context to use what it may read. |
    | `psyche` | `psyche`, `shell` | `crisis`, `general`, `safety` | `crisis`, `profile`, `scene`,
    `session` | The real-time runtime, on the crisis blueprint: the safety frame only. |
    | `living-scene` | `living-scene`, `shell` | `general` | `profile`, `scene`, `session` | Scene
    rendering: general context only. |

    Args:
        member_id (UUID):
        context (ListShortTermContext | Unset):  Default: 'general'.
        cursor (None | str | Unset):
        page_size (int | None | Unset):
        scope_id (str):
        scope_kind (ListShortTermScopeKind | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PaginatedShortTermOutputList
    """

    return sync_detailed(
        member_id=member_id,
        client=client,
        context=context,
        cursor=cursor,
        page_size=page_size,
        scope_id=scope_id,
        scope_kind=scope_kind,
    ).parsed


async def asyncio_detailed(
    member_id: UUID,
    *,
    client: AuthenticatedClient,
    context: ListShortTermContext | Unset = "general",
    cursor: None | str | Unset = UNSET,
    page_size: int | None | Unset = UNSET,
    scope_id: str,
    scope_kind: ListShortTermScopeKind | Unset = UNSET,
) -> Response[PaginatedShortTermOutputList]:
    """List a scope's short-term rows

     Every row passes the read gate for the calling client: the member's consents (`data_processing`; a
    sensitive category needs its own consent and a `context` in which it may surface, e.g.
    `mental_health` only in `health`, `safety` or `crisis`), a pending full clear and off the record. A
    row it withholds is absent; the page's `withheld` object counts the rows withheld from it by reason
    (e.g. `sensitive-category-outside-relevant-context`), so a page may be shorter than `page_size`
    while `next` still leads on.

    What each service client may claim comes from its consumer (narrowed per client by a platform
    operator); a `surface`, `context` or scope kind outside it is **403** with `error.code` `surface-
    not-allowed`, `context-not-allowed` or `consumer-not-allowed-for-scope`, never silently changed.

    | consumer | surfaces (budgets) | contexts | scope kinds (read, write) | why |
    |---|---|---|---|---|
    | `assistant` | `assistant`, `shell` | `crisis`, `financial`, `general`, `health`, `identity`,
    `legal`, `relationship`, `safety`, `spiritual` | `crisis`, `notebook`, `pose`, `profile`, `scene`,
    `session` | The member's general conversational surface: it routes into every domain, so it may
    claim every context; its own budget (12) or the shell's. |
    | `shell` | `shell` | `crisis`, `general`, `safety` | `crisis`, `notebook`, `profile`, `session` |
    Intent routing with a three-entry budget: it hands sensitive topics to the domain surfaces and keeps
    only the safety frame (it is on the crisis blueprint). |
    | `notebook` | `notebook`, `shell` | `general` | `notebook`, `profile`, `session`, `tenant` | Study
    notebooks: the only surface with the notebook budget (999, rationales shown); notes are not a
    sensitive context. |
    | `tara` | `shell`, `tara` | `general`, `health`, `safety` | `notebook`, `pose`, `profile`, `scene`,
    `session` | Recovery companion: the seed's own example of health memory surfacing ("in Tara
    recovery"), with the safety frame. |
    | `veritas` | `shell`, `veritas` | `general` | `notebook`, `profile`, `session` | Briefings: the
    seed's own example of where health memory never surfaces; no sensitive context at all. |
    | `nyx` | `nyx`, `shell` | `general` | `notebook`, `profile`, `session` | A domain product the seed
    gives no sensitive role: general context only. |
    | `arete` | `arete`, `shell` | `general` | `notebook`, `profile`, `session` | A domain product the
    seed gives no sensitive role: general context only. |
    | `nisaba` | `nisaba`, `shell` | `general` | `notebook`, `profile`, `session` | Editions and
    reading: general context only. |
    | `metis` | `metis`, `shell` | `general` | `notebook`, `profile`, `session`, `tenant` | Courses and
    institutional learner state: general context only. |
    | `studio` | `shell`, `studio` | `general`, `health` | `notebook`, `pose`, `profile`, `scene`,
    `session` | On the pose blueprint: pose alignment is health-context memory, so it needs the health
    context to use what it may read. |
    | `psyche` | `psyche`, `shell` | `crisis`, `general`, `safety` | `crisis`, `profile`, `scene`,
    `session` | The real-time runtime, on the crisis blueprint: the safety frame only. |
    | `living-scene` | `living-scene`, `shell` | `general` | `profile`, `scene`, `session` | Scene
    rendering: general context only. |

    Args:
        member_id (UUID):
        context (ListShortTermContext | Unset):  Default: 'general'.
        cursor (None | str | Unset):
        page_size (int | None | Unset):
        scope_id (str):
        scope_kind (ListShortTermScopeKind | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PaginatedShortTermOutputList]
    """

    kwargs = _get_kwargs(
        member_id=member_id,
        context=context,
        cursor=cursor,
        page_size=page_size,
        scope_id=scope_id,
        scope_kind=scope_kind,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    member_id: UUID,
    *,
    client: AuthenticatedClient,
    context: ListShortTermContext | Unset = "general",
    cursor: None | str | Unset = UNSET,
    page_size: int | None | Unset = UNSET,
    scope_id: str,
    scope_kind: ListShortTermScopeKind | Unset = UNSET,
) -> PaginatedShortTermOutputList | None:
    """List a scope's short-term rows

     Every row passes the read gate for the calling client: the member's consents (`data_processing`; a
    sensitive category needs its own consent and a `context` in which it may surface, e.g.
    `mental_health` only in `health`, `safety` or `crisis`), a pending full clear and off the record. A
    row it withholds is absent; the page's `withheld` object counts the rows withheld from it by reason
    (e.g. `sensitive-category-outside-relevant-context`), so a page may be shorter than `page_size`
    while `next` still leads on.

    What each service client may claim comes from its consumer (narrowed per client by a platform
    operator); a `surface`, `context` or scope kind outside it is **403** with `error.code` `surface-
    not-allowed`, `context-not-allowed` or `consumer-not-allowed-for-scope`, never silently changed.

    | consumer | surfaces (budgets) | contexts | scope kinds (read, write) | why |
    |---|---|---|---|---|
    | `assistant` | `assistant`, `shell` | `crisis`, `financial`, `general`, `health`, `identity`,
    `legal`, `relationship`, `safety`, `spiritual` | `crisis`, `notebook`, `pose`, `profile`, `scene`,
    `session` | The member's general conversational surface: it routes into every domain, so it may
    claim every context; its own budget (12) or the shell's. |
    | `shell` | `shell` | `crisis`, `general`, `safety` | `crisis`, `notebook`, `profile`, `session` |
    Intent routing with a three-entry budget: it hands sensitive topics to the domain surfaces and keeps
    only the safety frame (it is on the crisis blueprint). |
    | `notebook` | `notebook`, `shell` | `general` | `notebook`, `profile`, `session`, `tenant` | Study
    notebooks: the only surface with the notebook budget (999, rationales shown); notes are not a
    sensitive context. |
    | `tara` | `shell`, `tara` | `general`, `health`, `safety` | `notebook`, `pose`, `profile`, `scene`,
    `session` | Recovery companion: the seed's own example of health memory surfacing ("in Tara
    recovery"), with the safety frame. |
    | `veritas` | `shell`, `veritas` | `general` | `notebook`, `profile`, `session` | Briefings: the
    seed's own example of where health memory never surfaces; no sensitive context at all. |
    | `nyx` | `nyx`, `shell` | `general` | `notebook`, `profile`, `session` | A domain product the seed
    gives no sensitive role: general context only. |
    | `arete` | `arete`, `shell` | `general` | `notebook`, `profile`, `session` | A domain product the
    seed gives no sensitive role: general context only. |
    | `nisaba` | `nisaba`, `shell` | `general` | `notebook`, `profile`, `session` | Editions and
    reading: general context only. |
    | `metis` | `metis`, `shell` | `general` | `notebook`, `profile`, `session`, `tenant` | Courses and
    institutional learner state: general context only. |
    | `studio` | `shell`, `studio` | `general`, `health` | `notebook`, `pose`, `profile`, `scene`,
    `session` | On the pose blueprint: pose alignment is health-context memory, so it needs the health
    context to use what it may read. |
    | `psyche` | `psyche`, `shell` | `crisis`, `general`, `safety` | `crisis`, `profile`, `scene`,
    `session` | The real-time runtime, on the crisis blueprint: the safety frame only. |
    | `living-scene` | `living-scene`, `shell` | `general` | `profile`, `scene`, `session` | Scene
    rendering: general context only. |

    Args:
        member_id (UUID):
        context (ListShortTermContext | Unset):  Default: 'general'.
        cursor (None | str | Unset):
        page_size (int | None | Unset):
        scope_id (str):
        scope_kind (ListShortTermScopeKind | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PaginatedShortTermOutputList
    """

    return (
        await asyncio_detailed(
            member_id=member_id,
            client=client,
            context=context,
            cursor=cursor,
            page_size=page_size,
            scope_id=scope_id,
            scope_kind=scope_kind,
        )
    ).parsed
