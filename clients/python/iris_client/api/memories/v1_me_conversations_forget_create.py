from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.conversation_forgotten import ConversationForgotten
from ...types import Response


def _get_kwargs(
    session_id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/me/conversations/{session_id}/forget/".format(
            session_id=quote(str(session_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ConversationForgotten | None:
    if response.status_code == 200:
        response_200 = ConversationForgotten.from_dict(response.json())

        return response_200

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ConversationForgotten]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    session_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[ConversationForgotten]:
    """Forget one of my conversations

     Forget one of my conversations: its turns and short-term rows are deleted, and the
    memories that came only from it (its session memory, summaries of it, facts drawn from
    its turns alone) become tombstones. A memory that also cites another conversation, or
    that I stated in my profile, stays. 404: no such conversation of mine, including one
    forgotten already (nothing is left of it).

    Args:
        session_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ConversationForgotten]
    """

    kwargs = _get_kwargs(
        session_id=session_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    session_id: str,
    *,
    client: AuthenticatedClient,
) -> ConversationForgotten | None:
    """Forget one of my conversations

     Forget one of my conversations: its turns and short-term rows are deleted, and the
    memories that came only from it (its session memory, summaries of it, facts drawn from
    its turns alone) become tombstones. A memory that also cites another conversation, or
    that I stated in my profile, stays. 404: no such conversation of mine, including one
    forgotten already (nothing is left of it).

    Args:
        session_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ConversationForgotten
    """

    return sync_detailed(
        session_id=session_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    session_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[ConversationForgotten]:
    """Forget one of my conversations

     Forget one of my conversations: its turns and short-term rows are deleted, and the
    memories that came only from it (its session memory, summaries of it, facts drawn from
    its turns alone) become tombstones. A memory that also cites another conversation, or
    that I stated in my profile, stays. 404: no such conversation of mine, including one
    forgotten already (nothing is left of it).

    Args:
        session_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ConversationForgotten]
    """

    kwargs = _get_kwargs(
        session_id=session_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    session_id: str,
    *,
    client: AuthenticatedClient,
) -> ConversationForgotten | None:
    """Forget one of my conversations

     Forget one of my conversations: its turns and short-term rows are deleted, and the
    memories that came only from it (its session memory, summaries of it, facts drawn from
    its turns alone) become tombstones. A memory that also cites another conversation, or
    that I stated in my profile, stays. 404: no such conversation of mine, including one
    forgotten already (nothing is left of it).

    Args:
        session_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ConversationForgotten
    """

    return (
        await asyncio_detailed(
            session_id=session_id,
            client=client,
        )
    ).parsed
