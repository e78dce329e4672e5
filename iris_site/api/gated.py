"""Which views return a member's content, and through what.

Every view that can return member content (memory bodies, short-term rows, subjects,
relationship notes, continuation tokens, turns) declares it with ``content_view``; a test
derived from the URLconf (`tests/trust/test_gate_coverage.py`) fails on any view whose
responses carry content fields and that is not declared, and on any declared view whose
declaration is not one of these:

- ``READ_GATE``: each returned item passed `memory.access.gate.decide` for the authenticated
  reader (a service client, with its capabilities) and the member's current state;
- ``MEMBER_OWN``: the member reading their own content (the gate's member reader: owner
  only), through selectors that filter by the signed-in member;
- ``INSPECTION``: an operator reading through a granted inspection (its snapshot ids);
- ``WRITE_ECHO``: the answer to a write, holding only what this caller just sent.

Pages and views that return no member content at all say so with ``content_free``.

A ``READ_GATE`` declaration is proved at run time, not read from the code:
`memory.access.gate.decide` reports the content kind of every item it decides to
``gate_consulted``, and the coverage test calls each such view inside ``gate_watch()``
with content of every declared kind present, then requires that items of each of those
kinds were decided.
"""

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

READ_GATE = "read-gate"
MEMBER_OWN = "member-own"
INSPECTION = "inspection"
WRITE_ECHO = "write-echo"
THROUGH = frozenset({READ_GATE, MEMBER_OWN, INSPECTION, WRITE_ECHO})


@dataclass(frozen=True, slots=True)
class ContentDeclaration:
    reads: tuple[str, ...]  # the content kinds it returns (memory.access.gate.ContentKind)
    through: str  # one of THROUGH, or "none" for content-free views


CONTENT_FREE = ContentDeclaration((), "none")
ATTRIBUTE = "iris_content"


def content_view(*, reads: Iterable[str], through: str) -> Callable:
    """Declare a view (function or class) as returning member content ``through`` one of
    the sanctioned paths."""
    if through not in THROUGH:
        raise ValueError(f"unknown content path {through!r}")
    declaration = ContentDeclaration(tuple(reads), through)

    def mark(view):
        setattr(view, ATTRIBUTE, declaration)
        return view

    return mark


def content_free(view):
    """Declare that a view never returns member content."""
    setattr(view, ATTRIBUTE, CONTENT_FREE)
    return view


def declaration_of(view) -> ContentDeclaration | None:
    return getattr(view, ATTRIBUTE, None)


# The kinds the read gate decided about in this thread or task, while someone watches.
_consulted: ContextVar[set[str] | None] = ContextVar("iris_gate_consulted", default=None)


def gate_consulted(kind: str) -> None:
    """`memory.access.gate.decide` reports each item's content kind (a no-op unless watched)."""
    watched = _consulted.get()
    if watched is not None:
        watched.add(kind)


@contextmanager
def gate_watch() -> Iterator[set[str]]:
    """The content kinds the read gate decided about inside the block (this thread or
    task only: call the view in-process, e.g. with Django's test client)."""
    watched: set[str] = set()
    token = _consulted.set(watched)
    try:
        yield watched
    finally:
        _consulted.reset(token)
