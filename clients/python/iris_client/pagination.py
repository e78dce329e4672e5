"""Walking the API's two kinds of pages.

- Lists (`/api/v1/me/memories/`, `/short-term/`, …) are cursor-paginated: a page has
  `results` and `next`, a URL whose `cursor` the next call passes. `pages()` and
  `apages()` yield every page of a generated list operation.
- The change feed (`GET /api/v1/events/`) hands back `events` and a `next` cursor to pass
  as `after` (and to acknowledge); it always has a `next`, and a page with no events is
  the end for now. `change_pages()` and `achange_pages()` yield its pages to that end.
"""

from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any, Protocol
from urllib.parse import parse_qs, urlsplit

from iris_client.api.memories import read_changes
from iris_client.client import AuthenticatedClient
from iris_client.models import ChangeFeed
from iris_client.types import UNSET, Unset


class Page(Protocol):
    next_: str | Unset | None


def _answered[P](page: P | None) -> P:
    """A generated operation returns None for an answer it does not know; an `Iris`
    client raises on one instead, so None means another client was passed."""
    if page is None:
        raise TypeError("an answer that is not a page: pass an iris_client.Iris as client")
    return page


def next_cursor(page: Page) -> str | None:
    """The `cursor` a list page's `next` URL names; None on the last page."""
    if not isinstance(page.next_, str):
        return None
    return parse_qs(urlsplit(page.next_).query).get("cursor", [None])[0]


def pages[P: Page](fetch: Callable[..., P | None], /, **kwargs: Any) -> Iterator[P]:
    """Every page of a list: `fetch` is a generated operation's `sync`, `kwargs` its
    arguments (`client=` included), e.g. `pages(v1_me_memories_list.sync, client=iris)`."""
    cursor: str | Unset = UNSET
    while True:
        page = _answered(fetch(**kwargs, cursor=cursor))
        yield page
        following = next_cursor(page)
        if following is None:
            return
        cursor = following


async def apages[P: Page](fetch: Callable[..., Any], /, **kwargs: Any) -> AsyncIterator[P]:
    """`pages()` for a generated operation's `asyncio`."""
    cursor: str | Unset = UNSET
    while True:
        page = _answered(await fetch(**kwargs, cursor=cursor))
        yield page
        following = next_cursor(page)
        if following is None:
            return
        cursor = following


def change_pages(
    client: AuthenticatedClient, *, after: str | Unset = UNSET, limit: int | Unset = UNSET
) -> Iterator[ChangeFeed]:
    """The change feed from `after` (the start when unset), page by page, up to the first
    page with no events (yielded too: its `next` is where to resume and what to ack)."""
    while True:
        page = _answered(read_changes.sync(client=client, after=after, limit=limit))
        yield page
        if not page.events:
            return
        after = page.next_


async def achange_pages(
    client: AuthenticatedClient, *, after: str | Unset = UNSET, limit: int | Unset = UNSET
) -> AsyncIterator[ChangeFeed]:
    """`change_pages()`, async."""
    while True:
        page = _answered(await read_changes.asyncio(client=client, after=after, limit=limit))
        yield page
        if not page.events:
            return
        after = page.next_
