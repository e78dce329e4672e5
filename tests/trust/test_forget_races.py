"""A consent withdrawal racing writes of its category: threads with their own database
connections, released together, against the real services, round after round. Consent
is read and the write made under the member lock the cascade takes, so every write is
either refused or committed before the cascade looks, and then forgotten: no entry of
the category is left active, and a later re-grant brings none back.

PostgreSQL is where the interleavings are real (READ COMMITTED, row locks); SQLite runs
the same test cheaply, its IMMEDIATE transactions serializing the writers."""

import time

import pytest

from consent.selectors import consent_active
from iris_site.audit.selectors import audit_chain_verify
from iris_site.errors import PolicyRefusal
from memory.enums import Lifecycle
from memory.models import MemoryEntry
from memory.services import RememberResult
from tests.consent.factories import record
from tests.hierarchy.stm_factories import service_actor
from tests.memory.factories import consenting_member, member_turn, quoting, remember
from tests.trust.test_concurrency import race

WRITERS = 15
# Seconds between two writers' starts, one value per round.
STAGGERS = (0, 0.0005, 0.001, 0.002, 0.003, 0.005)
WORDS = "alder birch cedar daisy elm fern gorse hazel iris juniper kale larch maple nettle oak"
race_db = pytest.mark.django_db(transaction=True)


def _write(member, actor, n: int, stagger: float, said: list[dict]):
    # Distinct words per writer: no write re-creates another's text or subject.
    word = WORDS.split()[n]

    def write():
        # Staggered, by another step each round, over the withdrawal's transaction and
        # its cascade, so that writes arrive before, during and after each (released all
        # at once, they mostly queue on the member lock together).
        time.sleep(n * stagger)
        return remember(
            member,
            actor=actor,
            consumer="assistant",
            category="financial",
            subject=f"{word} account",
            body=f"The {word} fund pays out monthly",
            provenance=said,
        )

    return write


def _active_financial(member) -> int:
    return MemoryEntry.objects.filter(
        member=member, category="financial", lifecycle=Lifecycle.ACTIVE
    ).count()


@race_db
@pytest.mark.parametrize(("round_", "stagger"), list(enumerate(STAGGERS)))
def test_writes_racing_a_withdrawal_leave_nothing_of_the_category_active(round_, stagger):
    # given: a member who consents to financial memory, and one entry already kept
    member = consenting_member("category:financial")
    actor = service_actor()
    remember(member, category="financial", subject="pension", body="Pension from the old job")
    withdraw = lambda: record(member, "category:financial", "withdrawal")  # noqa: E731
    # the surface quotes the member's own words (a sensitive fact is only kept as theirs)
    said = quoting(member_turn(member, "My pension and funds pay out monthly"))
    calls = [_write(member, actor, n, stagger, said) for n in range(WRITERS)]
    calls.insert(round_ * 3 % WRITERS, withdraw)  # the withdrawal starts among the writers
    # when
    results, errors = race(calls)
    # then: every failure is the consent refusal, or (once the cascade forgot the entries
    # and the turn they came from) the quoted turn being gone; whatever was written is
    # forgotten
    unexpected = [e for e in errors if not isinstance(e, PolicyRefusal)]
    assert unexpected == [], unexpected
    assert {e.code for e in errors} <= {
        "sensitive-category-without-consent",
        "provenance-turn-not-found",
    }
    stored = [r for r in results if isinstance(r, RememberResult) and r.created]
    assert len(stored) + len(errors) == WRITERS
    assert "category:financial" not in consent_active(member_id=member.pk).types
    assert _active_financial(member) == 0
    written = MemoryEntry.objects.filter(member=member, category="financial")
    assert written.count() == len(stored) + 1
    assert set(written.values_list("lifecycle", flat=True)) == {Lifecycle.TOMBSTONED}
    # when: the member grants the consent again
    record(member, "category:financial", "grant")
    # then: nothing comes back, and a surface cannot write it back either
    assert _active_financial(member) == 0
    with pytest.raises(PolicyRefusal) as refused:
        remember(
            member,
            actor=actor,
            consumer="assistant",
            category="financial",
            subject="pension",
            body="Pension from the old job",
            # the forgotten entries' source turn went with them: the surface quotes anew
            provenance=quoting(member_turn(member, "About my pension from the old job")),
        )
    assert refused.value.code == "forgotten-fact"
    assert _active_financial(member) == 0
    assert audit_chain_verify().valid
