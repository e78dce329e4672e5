from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.recall_output import RecallOutput
from ...models.recall_request import RecallRequest
from ...types import Response


def _get_kwargs(
    member_id: UUID,
    *,
    body: RecallRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/members/{member_id}/recall/".format(
            member_id=quote(str(member_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> RecallOutput | None:
    if response.status_code == 200:
        response_200 = RecallOutput.from_dict(response.json())

        return response_200

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[RecallOutput]:
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
    body: RecallRequest,
) -> Response[RecallOutput]:
    """Recall what may be said back about a member

     What the assistant may say back about a member now, through the read gate. Consented categories come
    from the member's consent ledger; `consented_categories` and `budget` may only narrow.

    The calling service client's consumer decides which `surface` budgets it may use, which `context` it
    may claim and which scope kinds it may read (a platform operator may narrow one client further). A
    request outside them is 403 with `surface-not-allowed`, `context-not-allowed` or `consumer-not-
    allowed-for-scope`, never silently up- or downgraded. Every kind the recall *reaches* (not only the
    one it names) must be on the consumer's allow-list, or its entries are withheld and counted as
    `consumer-not-allowed-for-scope` in `audit_envelope.suppression_counts`.

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
        body (RecallRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[RecallOutput]
    """

    kwargs = _get_kwargs(
        member_id=member_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    member_id: UUID,
    *,
    client: AuthenticatedClient,
    body: RecallRequest,
) -> RecallOutput | None:
    """Recall what may be said back about a member

     What the assistant may say back about a member now, through the read gate. Consented categories come
    from the member's consent ledger; `consented_categories` and `budget` may only narrow.

    The calling service client's consumer decides which `surface` budgets it may use, which `context` it
    may claim and which scope kinds it may read (a platform operator may narrow one client further). A
    request outside them is 403 with `surface-not-allowed`, `context-not-allowed` or `consumer-not-
    allowed-for-scope`, never silently up- or downgraded. Every kind the recall *reaches* (not only the
    one it names) must be on the consumer's allow-list, or its entries are withheld and counted as
    `consumer-not-allowed-for-scope` in `audit_envelope.suppression_counts`.

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
        body (RecallRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        RecallOutput
    """

    return sync_detailed(
        member_id=member_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    member_id: UUID,
    *,
    client: AuthenticatedClient,
    body: RecallRequest,
) -> Response[RecallOutput]:
    """Recall what may be said back about a member

     What the assistant may say back about a member now, through the read gate. Consented categories come
    from the member's consent ledger; `consented_categories` and `budget` may only narrow.

    The calling service client's consumer decides which `surface` budgets it may use, which `context` it
    may claim and which scope kinds it may read (a platform operator may narrow one client further). A
    request outside them is 403 with `surface-not-allowed`, `context-not-allowed` or `consumer-not-
    allowed-for-scope`, never silently up- or downgraded. Every kind the recall *reaches* (not only the
    one it names) must be on the consumer's allow-list, or its entries are withheld and counted as
    `consumer-not-allowed-for-scope` in `audit_envelope.suppression_counts`.

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
        body (RecallRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[RecallOutput]
    """

    kwargs = _get_kwargs(
        member_id=member_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    member_id: UUID,
    *,
    client: AuthenticatedClient,
    body: RecallRequest,
) -> RecallOutput | None:
    """Recall what may be said back about a member

     What the assistant may say back about a member now, through the read gate. Consented categories come
    from the member's consent ledger; `consented_categories` and `budget` may only narrow.

    The calling service client's consumer decides which `surface` budgets it may use, which `context` it
    may claim and which scope kinds it may read (a platform operator may narrow one client further). A
    request outside them is 403 with `surface-not-allowed`, `context-not-allowed` or `consumer-not-
    allowed-for-scope`, never silently up- or downgraded. Every kind the recall *reaches* (not only the
    one it names) must be on the consumer's allow-list, or its entries are withheld and counted as
    `consumer-not-allowed-for-scope` in `audit_envelope.suppression_counts`.

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
        body (RecallRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        RecallOutput
    """

    return (
        await asyncio_detailed(
            member_id=member_id,
            client=client,
            body=body,
        )
    ).parsed
