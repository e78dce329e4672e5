from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.conversation_turn_output import ConversationTurnOutput
from ...models.turn_append_request import TurnAppendRequest
from ...types import UNSET, Response, Unset


def _get_kwargs(
    member_id: UUID,
    session_id: str,
    *,
    body: TurnAppendRequest,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/members/{member_id}/sessions/{session_id}/turns/".format(
            member_id=quote(str(member_id), safe=""),
            session_id=quote(str(session_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ConversationTurnOutput | None:
    if response.status_code == 201:
        response_201 = ConversationTurnOutput.from_dict(response.json())

        return response_201

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ConversationTurnOutput]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    member_id: UUID,
    session_id: str,
    *,
    client: AuthenticatedClient,
    body: TurnAppendRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[ConversationTurnOutput]:
    """Append a conversation turn

     Append one turn to a member's session log (what `session-turn` provenance names).
    With `redact_pii`, emails, phones, cards and addresses become tokens before storage.

    Args:
        member_id (UUID):
        session_id (str):
        idempotency_key (str | Unset):
        body (TurnAppendRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ConversationTurnOutput]
    """

    kwargs = _get_kwargs(
        member_id=member_id,
        session_id=session_id,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    member_id: UUID,
    session_id: str,
    *,
    client: AuthenticatedClient,
    body: TurnAppendRequest,
    idempotency_key: str | Unset = UNSET,
) -> ConversationTurnOutput | None:
    """Append a conversation turn

     Append one turn to a member's session log (what `session-turn` provenance names).
    With `redact_pii`, emails, phones, cards and addresses become tokens before storage.

    Args:
        member_id (UUID):
        session_id (str):
        idempotency_key (str | Unset):
        body (TurnAppendRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ConversationTurnOutput
    """

    return sync_detailed(
        member_id=member_id,
        session_id=session_id,
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    member_id: UUID,
    session_id: str,
    *,
    client: AuthenticatedClient,
    body: TurnAppendRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[ConversationTurnOutput]:
    """Append a conversation turn

     Append one turn to a member's session log (what `session-turn` provenance names).
    With `redact_pii`, emails, phones, cards and addresses become tokens before storage.

    Args:
        member_id (UUID):
        session_id (str):
        idempotency_key (str | Unset):
        body (TurnAppendRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ConversationTurnOutput]
    """

    kwargs = _get_kwargs(
        member_id=member_id,
        session_id=session_id,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    member_id: UUID,
    session_id: str,
    *,
    client: AuthenticatedClient,
    body: TurnAppendRequest,
    idempotency_key: str | Unset = UNSET,
) -> ConversationTurnOutput | None:
    """Append a conversation turn

     Append one turn to a member's session log (what `session-turn` provenance names).
    With `redact_pii`, emails, phones, cards and addresses become tokens before storage.

    Args:
        member_id (UUID):
        session_id (str):
        idempotency_key (str | Unset):
        body (TurnAppendRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ConversationTurnOutput
    """

    return (
        await asyncio_detailed(
            member_id=member_id,
            session_id=session_id,
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
