from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.memory_notice import MemoryNotice
from ...models.memory_notice_answer_input_request import MemoryNoticeAnswerInputRequest
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: UUID,
    *,
    body: MemoryNoticeAnswerInputRequest | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/me/notices/{id}/answer/".format(
            id=quote(str(id), safe=""),
        ),
    }

    if not isinstance(body, Unset):
        _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> MemoryNotice | None:
    if response.status_code == 200:
        response_200 = MemoryNotice.from_dict(response.json())

        return response_200

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[MemoryNotice]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: UUID,
    *,
    client: AuthenticatedClient,
    body: MemoryNoticeAnswerInputRequest | Unset = UNSET,
) -> Response[MemoryNotice]:
    """Answer a question

     Answer a question. A `conflict-question` takes `accept`: true takes the proposal
    (the old memory is superseded), false drops it. A `reconfirm` ("Is this still true?")
    takes `answer`: `confirm` makes it your confirmed word (its confidence rises and its
    freshness starts afresh), `forget` forgets it everywhere. A `promotion` (Iris put a
    memory into "About you" on its own) takes `answer`: `keep` leaves it there as your
    confirmed word, `forget` forgets it everywhere. A question is answered once (409
    after); every answer is on the audit record (ids and the choice, never the words).

    Args:
        id (UUID):
        body (MemoryNoticeAnswerInputRequest | Unset): Refuses fields it does not know, so a
            client never believes it set one.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[MemoryNotice]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: UUID,
    *,
    client: AuthenticatedClient,
    body: MemoryNoticeAnswerInputRequest | Unset = UNSET,
) -> MemoryNotice | None:
    """Answer a question

     Answer a question. A `conflict-question` takes `accept`: true takes the proposal
    (the old memory is superseded), false drops it. A `reconfirm` ("Is this still true?")
    takes `answer`: `confirm` makes it your confirmed word (its confidence rises and its
    freshness starts afresh), `forget` forgets it everywhere. A `promotion` (Iris put a
    memory into "About you" on its own) takes `answer`: `keep` leaves it there as your
    confirmed word, `forget` forgets it everywhere. A question is answered once (409
    after); every answer is on the audit record (ids and the choice, never the words).

    Args:
        id (UUID):
        body (MemoryNoticeAnswerInputRequest | Unset): Refuses fields it does not know, so a
            client never believes it set one.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        MemoryNotice
    """

    return sync_detailed(
        id=id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    id: UUID,
    *,
    client: AuthenticatedClient,
    body: MemoryNoticeAnswerInputRequest | Unset = UNSET,
) -> Response[MemoryNotice]:
    """Answer a question

     Answer a question. A `conflict-question` takes `accept`: true takes the proposal
    (the old memory is superseded), false drops it. A `reconfirm` ("Is this still true?")
    takes `answer`: `confirm` makes it your confirmed word (its confidence rises and its
    freshness starts afresh), `forget` forgets it everywhere. A `promotion` (Iris put a
    memory into "About you" on its own) takes `answer`: `keep` leaves it there as your
    confirmed word, `forget` forgets it everywhere. A question is answered once (409
    after); every answer is on the audit record (ids and the choice, never the words).

    Args:
        id (UUID):
        body (MemoryNoticeAnswerInputRequest | Unset): Refuses fields it does not know, so a
            client never believes it set one.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[MemoryNotice]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: UUID,
    *,
    client: AuthenticatedClient,
    body: MemoryNoticeAnswerInputRequest | Unset = UNSET,
) -> MemoryNotice | None:
    """Answer a question

     Answer a question. A `conflict-question` takes `accept`: true takes the proposal
    (the old memory is superseded), false drops it. A `reconfirm` ("Is this still true?")
    takes `answer`: `confirm` makes it your confirmed word (its confidence rises and its
    freshness starts afresh), `forget` forgets it everywhere. A `promotion` (Iris put a
    memory into "About you" on its own) takes `answer`: `keep` leaves it there as your
    confirmed word, `forget` forgets it everywhere. A question is answered once (409
    after); every answer is on the audit record (ids and the choice, never the words).

    Args:
        id (UUID):
        body (MemoryNoticeAnswerInputRequest | Unset): Refuses fields it does not know, so a
            client never believes it set one.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        MemoryNotice
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            body=body,
        )
    ).parsed
