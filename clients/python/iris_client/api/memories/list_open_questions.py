from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.list_open_questions_context import (
    ListOpenQuestionsContext,
)
from ...models.open_questions_output import OpenQuestionsOutput
from ...types import UNSET, Response, Unset


def _get_kwargs(
    member_id: UUID,
    *,
    context: ListOpenQuestionsContext | Unset = "general",
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_context: str | Unset = UNSET
    if not isinstance(context, Unset):
        json_context = context

    params["context"] = json_context

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/members/{member_id}/questions/".format(
            member_id=quote(str(member_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> OpenQuestionsOutput | None:
    if response.status_code == 200:
        response_200 = OpenQuestionsOutput.from_dict(response.json())

        return response_200

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[OpenQuestionsOutput]:
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
    context: ListOpenQuestionsContext | Unset = "general",
) -> Response[OpenQuestionsOutput]:
    """List the member's open questions

     At most 20, newest first. A question is listed only when the read gate lets the calling client see
    the memory it is about and its proposal (as the entry it would become), for this member and
    `context`; the others are counted by reason in `withheld`. The member answers in their own memory
    pages.

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
        context (ListOpenQuestionsContext | Unset):  Default: 'general'.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[OpenQuestionsOutput]
    """

    kwargs = _get_kwargs(
        member_id=member_id,
        context=context,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    member_id: UUID,
    *,
    client: AuthenticatedClient,
    context: ListOpenQuestionsContext | Unset = "general",
) -> OpenQuestionsOutput | None:
    """List the member's open questions

     At most 20, newest first. A question is listed only when the read gate lets the calling client see
    the memory it is about and its proposal (as the entry it would become), for this member and
    `context`; the others are counted by reason in `withheld`. The member answers in their own memory
    pages.

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
        context (ListOpenQuestionsContext | Unset):  Default: 'general'.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        OpenQuestionsOutput
    """

    return sync_detailed(
        member_id=member_id,
        client=client,
        context=context,
    ).parsed


async def asyncio_detailed(
    member_id: UUID,
    *,
    client: AuthenticatedClient,
    context: ListOpenQuestionsContext | Unset = "general",
) -> Response[OpenQuestionsOutput]:
    """List the member's open questions

     At most 20, newest first. A question is listed only when the read gate lets the calling client see
    the memory it is about and its proposal (as the entry it would become), for this member and
    `context`; the others are counted by reason in `withheld`. The member answers in their own memory
    pages.

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
        context (ListOpenQuestionsContext | Unset):  Default: 'general'.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[OpenQuestionsOutput]
    """

    kwargs = _get_kwargs(
        member_id=member_id,
        context=context,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    member_id: UUID,
    *,
    client: AuthenticatedClient,
    context: ListOpenQuestionsContext | Unset = "general",
) -> OpenQuestionsOutput | None:
    """List the member's open questions

     At most 20, newest first. A question is listed only when the read gate lets the calling client see
    the memory it is about and its proposal (as the entry it would become), for this member and
    `context`; the others are counted by reason in `withheld`. The member answers in their own memory
    pages.

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
        context (ListOpenQuestionsContext | Unset):  Default: 'general'.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        OpenQuestionsOutput
    """

    return (
        await asyncio_detailed(
            member_id=member_id,
            client=client,
            context=context,
        )
    ).parsed
