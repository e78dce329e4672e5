from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.memory_settings import MemorySettings
from ...types import Response


def _get_kwargs() -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/me/memory-settings/",
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> MemorySettings | None:
    if response.status_code == 200:
        response_200 = MemorySettings.from_dict(response.json())

        return response_200

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[MemorySettings]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
) -> Response[MemorySettings]:
    """How Iris uses my memory now

     How Iris uses my memory. *Stop using my memories*: no surface recalls any of it
    (the recall envelope counts it under `member-stopped-use`); writes still follow my
    consents. *Forget automatically after…*: my memories of a scope older than 3, 12 or
    18 months are not used from that instant (`member-auto-forget`) and the retention
    sweep erases them within the hour (it can only shorten retention). *Pause a
    surface*: that surface reads nothing of mine (`surface-paused`) and its writes are
    refused with 422 `surface-paused`, until I resume it. PUT replaces all three; while
    a full clear of my memory waits, settings are put aside and a PUT answers 409
    `clear-pending`, nothing changed.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[MemorySettings]
    """

    kwargs = _get_kwargs()

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
) -> MemorySettings | None:
    """How Iris uses my memory now

     How Iris uses my memory. *Stop using my memories*: no surface recalls any of it
    (the recall envelope counts it under `member-stopped-use`); writes still follow my
    consents. *Forget automatically after…*: my memories of a scope older than 3, 12 or
    18 months are not used from that instant (`member-auto-forget`) and the retention
    sweep erases them within the hour (it can only shorten retention). *Pause a
    surface*: that surface reads nothing of mine (`surface-paused`) and its writes are
    refused with 422 `surface-paused`, until I resume it. PUT replaces all three; while
    a full clear of my memory waits, settings are put aside and a PUT answers 409
    `clear-pending`, nothing changed.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        MemorySettings
    """

    return sync_detailed(
        client=client,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
) -> Response[MemorySettings]:
    """How Iris uses my memory now

     How Iris uses my memory. *Stop using my memories*: no surface recalls any of it
    (the recall envelope counts it under `member-stopped-use`); writes still follow my
    consents. *Forget automatically after…*: my memories of a scope older than 3, 12 or
    18 months are not used from that instant (`member-auto-forget`) and the retention
    sweep erases them within the hour (it can only shorten retention). *Pause a
    surface*: that surface reads nothing of mine (`surface-paused`) and its writes are
    refused with 422 `surface-paused`, until I resume it. PUT replaces all three; while
    a full clear of my memory waits, settings are put aside and a PUT answers 409
    `clear-pending`, nothing changed.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[MemorySettings]
    """

    kwargs = _get_kwargs()

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
) -> MemorySettings | None:
    """How Iris uses my memory now

     How Iris uses my memory. *Stop using my memories*: no surface recalls any of it
    (the recall envelope counts it under `member-stopped-use`); writes still follow my
    consents. *Forget automatically after…*: my memories of a scope older than 3, 12 or
    18 months are not used from that instant (`member-auto-forget`) and the retention
    sweep erases them within the hour (it can only shorten retention). *Pause a
    surface*: that surface reads nothing of mine (`surface-paused`) and its writes are
    refused with 422 `surface-paused`, until I resume it. PUT replaces all three; while
    a full clear of my memory waits, settings are put aside and a PUT answers 409
    `clear-pending`, nothing changed.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        MemorySettings
    """

    return (
        await asyncio_detailed(
            client=client,
        )
    ).parsed
