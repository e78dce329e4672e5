"""Which views return a member's content, and through what.

Every view that can return member content (memory bodies, short-term rows, subjects,
relationship notes, continuation tokens, turns) declares it with ``content_view``; a test
derived from the URLconf (`tests/trust/test_gate_coverage.py`) fails on any view whose
responses carry content fields and that is not declared, and on any declared view whose
declaration is not one of these:

- ``READ_GATE``: each returned item passed `memory.gate.decide` for the authenticated
  reader (a service client, with its capabilities) and the member's current state;
- ``MEMBER_OWN``: the member reading their own content (the gate's member reader: owner
  only), through selectors that filter by the signed-in member;
- ``INSPECTION``: an operator reading through a granted inspection (its snapshot ids);
- ``WRITE_ECHO``: the answer to a write, holding only what this caller just sent.

Pages and views that return no member content at all say so with ``content_free``.
"""

from collections.abc import Callable, Iterable
from dataclasses import dataclass

READ_GATE = "read-gate"
MEMBER_OWN = "member-own"
INSPECTION = "inspection"
WRITE_ECHO = "write-echo"
THROUGH = frozenset({READ_GATE, MEMBER_OWN, INSPECTION, WRITE_ECHO})


@dataclass(frozen=True, slots=True)
class ContentDeclaration:
    reads: tuple[str, ...]  # the content kinds it returns (memory.gate.ContentKind)
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
