from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.memory_entry import MemoryEntry
from ...models.memory_kept_existing import MemoryKeptExisting
from ...models.memory_write_request import MemoryWriteRequest
from ...types import UNSET, Response, Unset


def _get_kwargs(
    member_id: UUID,
    *,
    body: MemoryWriteRequest,
    session_id: None | str | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    params: dict[str, Any] = {}

    json_session_id: None | str | Unset
    if isinstance(session_id, Unset):
        json_session_id = UNSET
    else:
        json_session_id = session_id
    params["session_id"] = json_session_id

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/members/{member_id}/memories/".format(
            member_id=quote(str(member_id), safe=""),
        ),
        "params": params,
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> MemoryEntry | MemoryKeptExisting | None:
    if response.status_code == 200:
        response_200 = MemoryKeptExisting.from_dict(response.json())

        return response_200

    if response.status_code == 201:
        response_201 = MemoryEntry.from_dict(response.json())

        return response_201

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[MemoryEntry | MemoryKeptExisting]:
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
    body: MemoryWriteRequest,
    session_id: None | str | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Response[MemoryEntry | MemoryKeptExisting]:
    """Remember a fact for a member

     Remember on a member's behalf through the consent-checked write path.

    201: stored (possibly superseding an older fact). 200 `kept-existing`: the conflict
    ladder kept what was there (with a notice when the member's own word was at stake);
    `entry` is that memory only if the read gate would show it to this surface (a paused
    memory, another scope's or an opted-out one is kept in silence: `entry` is null).
    422: refused with the seed's reason (`sensitive-category-without-consent`,
    `sensitive-inference-requires-confirmation`, `paused`, `scope-suppressed`,
    `user-stated-needs-member-turn`, `provenance-turn-not-found`, ...).
    403: this surface may not write the scope or assert the origin (`origin-not-allowed`:
    `user-confirmed` comes only from the member's confirmation, `operator-copilot` only
    from operators), or the member is not in that tenant, or the write carries a
    suppression (`suppression-reason-not-allowed`: only the member pauses, only a
    tenant's operator quarantines, and Iris sets the rest; a surface writes none).

    The origin is bound to the writer: `user-stated` needs a `session-turn` provenance
    link naming a turn the member spoke; anything else is an inference. A write into the
    profile comes from a conversation (`session_id`, or the quoted turns' session; else
    400 `session-required`) and is a session → profile promotion: the member's quoted
    words, or the fact's third occurrence in session memory, promote it; otherwise it is
    stored as session memory of that conversation. Either way the response says so in
    `Iris-Promotion` (the rule's reason code) and `Iris-Stored-As` (`profile` or
    `session`). Off the record holds for every conversation the write comes from.

    Args:
        member_id (UUID):
        session_id (None | str | Unset):
        idempotency_key (str | Unset):
        body (MemoryWriteRequest): The remember input, shared by the member API and the service
            API (`MemberScoped`:
            the scope's `user_id` may be left out). `confidence` left out means "derive it from
            the origin" (`policy.confidence_for_origin`).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[MemoryEntry | MemoryKeptExisting]
    """

    kwargs = _get_kwargs(
        member_id=member_id,
        body=body,
        session_id=session_id,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    member_id: UUID,
    *,
    client: AuthenticatedClient,
    body: MemoryWriteRequest,
    session_id: None | str | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> MemoryEntry | MemoryKeptExisting | None:
    """Remember a fact for a member

     Remember on a member's behalf through the consent-checked write path.

    201: stored (possibly superseding an older fact). 200 `kept-existing`: the conflict
    ladder kept what was there (with a notice when the member's own word was at stake);
    `entry` is that memory only if the read gate would show it to this surface (a paused
    memory, another scope's or an opted-out one is kept in silence: `entry` is null).
    422: refused with the seed's reason (`sensitive-category-without-consent`,
    `sensitive-inference-requires-confirmation`, `paused`, `scope-suppressed`,
    `user-stated-needs-member-turn`, `provenance-turn-not-found`, ...).
    403: this surface may not write the scope or assert the origin (`origin-not-allowed`:
    `user-confirmed` comes only from the member's confirmation, `operator-copilot` only
    from operators), or the member is not in that tenant, or the write carries a
    suppression (`suppression-reason-not-allowed`: only the member pauses, only a
    tenant's operator quarantines, and Iris sets the rest; a surface writes none).

    The origin is bound to the writer: `user-stated` needs a `session-turn` provenance
    link naming a turn the member spoke; anything else is an inference. A write into the
    profile comes from a conversation (`session_id`, or the quoted turns' session; else
    400 `session-required`) and is a session → profile promotion: the member's quoted
    words, or the fact's third occurrence in session memory, promote it; otherwise it is
    stored as session memory of that conversation. Either way the response says so in
    `Iris-Promotion` (the rule's reason code) and `Iris-Stored-As` (`profile` or
    `session`). Off the record holds for every conversation the write comes from.

    Args:
        member_id (UUID):
        session_id (None | str | Unset):
        idempotency_key (str | Unset):
        body (MemoryWriteRequest): The remember input, shared by the member API and the service
            API (`MemberScoped`:
            the scope's `user_id` may be left out). `confidence` left out means "derive it from
            the origin" (`policy.confidence_for_origin`).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        MemoryEntry | MemoryKeptExisting
    """

    return sync_detailed(
        member_id=member_id,
        client=client,
        body=body,
        session_id=session_id,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    member_id: UUID,
    *,
    client: AuthenticatedClient,
    body: MemoryWriteRequest,
    session_id: None | str | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Response[MemoryEntry | MemoryKeptExisting]:
    """Remember a fact for a member

     Remember on a member's behalf through the consent-checked write path.

    201: stored (possibly superseding an older fact). 200 `kept-existing`: the conflict
    ladder kept what was there (with a notice when the member's own word was at stake);
    `entry` is that memory only if the read gate would show it to this surface (a paused
    memory, another scope's or an opted-out one is kept in silence: `entry` is null).
    422: refused with the seed's reason (`sensitive-category-without-consent`,
    `sensitive-inference-requires-confirmation`, `paused`, `scope-suppressed`,
    `user-stated-needs-member-turn`, `provenance-turn-not-found`, ...).
    403: this surface may not write the scope or assert the origin (`origin-not-allowed`:
    `user-confirmed` comes only from the member's confirmation, `operator-copilot` only
    from operators), or the member is not in that tenant, or the write carries a
    suppression (`suppression-reason-not-allowed`: only the member pauses, only a
    tenant's operator quarantines, and Iris sets the rest; a surface writes none).

    The origin is bound to the writer: `user-stated` needs a `session-turn` provenance
    link naming a turn the member spoke; anything else is an inference. A write into the
    profile comes from a conversation (`session_id`, or the quoted turns' session; else
    400 `session-required`) and is a session → profile promotion: the member's quoted
    words, or the fact's third occurrence in session memory, promote it; otherwise it is
    stored as session memory of that conversation. Either way the response says so in
    `Iris-Promotion` (the rule's reason code) and `Iris-Stored-As` (`profile` or
    `session`). Off the record holds for every conversation the write comes from.

    Args:
        member_id (UUID):
        session_id (None | str | Unset):
        idempotency_key (str | Unset):
        body (MemoryWriteRequest): The remember input, shared by the member API and the service
            API (`MemberScoped`:
            the scope's `user_id` may be left out). `confidence` left out means "derive it from
            the origin" (`policy.confidence_for_origin`).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[MemoryEntry | MemoryKeptExisting]
    """

    kwargs = _get_kwargs(
        member_id=member_id,
        body=body,
        session_id=session_id,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    member_id: UUID,
    *,
    client: AuthenticatedClient,
    body: MemoryWriteRequest,
    session_id: None | str | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> MemoryEntry | MemoryKeptExisting | None:
    """Remember a fact for a member

     Remember on a member's behalf through the consent-checked write path.

    201: stored (possibly superseding an older fact). 200 `kept-existing`: the conflict
    ladder kept what was there (with a notice when the member's own word was at stake);
    `entry` is that memory only if the read gate would show it to this surface (a paused
    memory, another scope's or an opted-out one is kept in silence: `entry` is null).
    422: refused with the seed's reason (`sensitive-category-without-consent`,
    `sensitive-inference-requires-confirmation`, `paused`, `scope-suppressed`,
    `user-stated-needs-member-turn`, `provenance-turn-not-found`, ...).
    403: this surface may not write the scope or assert the origin (`origin-not-allowed`:
    `user-confirmed` comes only from the member's confirmation, `operator-copilot` only
    from operators), or the member is not in that tenant, or the write carries a
    suppression (`suppression-reason-not-allowed`: only the member pauses, only a
    tenant's operator quarantines, and Iris sets the rest; a surface writes none).

    The origin is bound to the writer: `user-stated` needs a `session-turn` provenance
    link naming a turn the member spoke; anything else is an inference. A write into the
    profile comes from a conversation (`session_id`, or the quoted turns' session; else
    400 `session-required`) and is a session → profile promotion: the member's quoted
    words, or the fact's third occurrence in session memory, promote it; otherwise it is
    stored as session memory of that conversation. Either way the response says so in
    `Iris-Promotion` (the rule's reason code) and `Iris-Stored-As` (`profile` or
    `session`). Off the record holds for every conversation the write comes from.

    Args:
        member_id (UUID):
        session_id (None | str | Unset):
        idempotency_key (str | Unset):
        body (MemoryWriteRequest): The remember input, shared by the member API and the service
            API (`MemberScoped`:
            the scope's `user_id` may be left out). `confidence` left out means "derive it from
            the origin" (`policy.confidence_for_origin`).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        MemoryEntry | MemoryKeptExisting
    """

    return (
        await asyncio_detailed(
            member_id=member_id,
            client=client,
            body=body,
            session_id=session_id,
            idempotency_key=idempotency_key,
        )
    ).parsed
