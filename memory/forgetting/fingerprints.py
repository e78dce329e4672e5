"""Nothing comes back by itself: keyed fingerprints of forgotten facts, retired handles.

When a member forgets a memory, the erasure service records, before the text goes, an
HMAC (the server's `IRIS_HASH_SECRET`, member-namespaced, see `memory.policy`) of the
entry's conflict key when it names a subject, and of the normalised text of its body
and of every earlier revision's body. Every write path asks `fingerprint_refusal`
before it stores text: a surface, a job, a consolidation or a compaction that would
re-create the fact is refused (`forgotten-fact`). Only the member stating it again
through the member API brings it back, and that statement clears the fingerprint.

"Forget every mention of X" retires X's actor handle the same way: a later write
tagging the handle is refused (`actor-retired`) unless the member writes it themselves.

What is kept is digests, never text: without the server secret they cannot be tested
against a guess, and they are bound to the member, so two members' digests never join.
A rotation of `IRIS_HASH_SECRET` lets the old fingerprints lapse (nothing matches them).
"""

import uuid
from collections.abc import Iterable, Sequence

from django.conf import settings
from django.utils import timezone

from iris_site.audit.enums import ActorType
from iris_site.audit.events import Actor
from memory.enums import Origin
from memory.forgetting.stores import ContentStore, Erasure, ExtentKind, content_store_register
from memory.models import ForgottenFact, MemoryEntry, MemoryRevision, RetiredActorHandle
from memory.policy.fingerprints import (
    fact_candidate_digests,
    fact_key_digest,
    fact_text_digest,
    fact_tokens,
)

FORGOTTEN_FACT = "forgotten-fact"
ACTOR_RETIRED = "actor-retired"


def _secret() -> bytes:
    return settings.IRIS_HASH_SECRET.encode("utf-8")


def restated_by_member(*, actor: Actor, origin: str) -> bool:
    """The one writer who may bring a forgotten fact or a retired person back: the
    member, stating it themselves (the member API writes only `user_stated`)."""
    return actor.type == ActorType.MEMBER and origin == Origin.USER_STATED


def fingerprints_record(*, member_id, entries: Iterable[MemoryEntry]) -> int:
    """Keep the fingerprints of entries being forgotten; call it before their text is
    erased. Every body the entry ever had is covered (its revisions' snapshots), so an
    edit's earlier wording cannot come back either. Returns how many were kept."""
    secret = _secret()
    entries = list(entries)
    if any(str(e.member_id) != str(member_id) for e in entries):
        raise ValueError("fingerprints are recorded for one member's entries at a time")
    if not entries:
        return 0
    bodies: dict[uuid.UUID, set[str]] = {e.pk: {e.body} for e in entries}
    for entry_id, content in MemoryRevision.objects.filter(
        member_id=member_id, entry_id__in=list(bodies)
    ).values_list("entry_id", "content"):
        if body := (content or {}).get("body"):
            bodies[entry_id].add(body)
    now = timezone.now()
    rows: dict[tuple[str, str], ForgottenFact] = {}
    for entry in entries:
        key_digest = (
            fact_key_digest(secret=secret, member_id=member_id, conflict_key=entry.conflict_key)
            or ""
        )
        for body in bodies[entry.pk]:
            tokens = fact_tokens(body)
            if not tokens:
                continue
            text_digest = fact_text_digest(secret=secret, member_id=member_id, tokens=tokens)
            rows[(key_digest, text_digest)] = ForgottenFact(
                member_id=member_id,
                key_digest=key_digest,
                text_digest=text_digest,
                token_count=len(tokens),
                forgotten_at=now,
            )
    ForgottenFact.objects.bulk_create(rows.values(), ignore_conflicts=True)
    return len(rows)


def _forgotten_texts(member_id) -> tuple[dict[str, list[int]], set[int]]:
    """The member's text fingerprints (digest → row ids) and the lengths they have. A
    member's forgotten facts are few; matching in Python keeps the query one and small."""
    by_digest: dict[str, list[int]] = {}
    lengths: set[int] = set()
    for pk, digest, length in ForgottenFact.objects.filter(member_id=member_id).values_list(
        "pk", "text_digest", "token_count"
    ):
        by_digest.setdefault(digest, []).append(pk)
        lengths.add(length)
    return by_digest, lengths


def _text_matches(member_id, texts: Sequence[str], by_digest, lengths) -> list[set[int]]:
    secret = _secret()
    return [
        {
            pk
            for digest in fact_candidate_digests(
                secret=secret, member_id=member_id, text=text, lengths=lengths
            )
            for pk in by_digest.get(digest, ())
        }
        for text in texts
    ]


def _matching(*, member_id, conflict_key: str, text: str) -> set[int]:
    """The ids of the member's fingerprints a write of this key and text re-creates."""
    by_digest, lengths = _forgotten_texts(member_id)
    if not by_digest:
        return set()
    [matched] = _text_matches(member_id, [text], by_digest, lengths)
    if key_digest := fact_key_digest(
        secret=_secret(), member_id=member_id, conflict_key=conflict_key
    ):
        matched.update(
            ForgottenFact.objects.filter(member_id=member_id, key_digest=key_digest).values_list(
                "pk", flat=True
            )
        )
    return matched


def fingerprint_refusal(*, member_id, conflict_key: str, text: str) -> str | None:
    """`forgotten-fact` when writing this would re-create a fact the member forgot: the
    same subject under the same category and person, or the forgotten text (in any case,
    spacing or punctuation) on its own or inside a longer text. None otherwise."""
    if _matching(member_id=member_id, conflict_key=conflict_key, text=text):
        return FORGOTTEN_FACT
    return None


def forgotten_texts_flag(*, member_id, texts: Sequence[str]) -> list[bool]:
    """For each text, whether it restates a forgotten fact's text (compaction drops
    those sentences before summarizing)."""
    by_digest, lengths = _forgotten_texts(member_id)
    if not by_digest:
        return [False] * len(texts)
    return [bool(m) for m in _text_matches(member_id, texts, by_digest, lengths)]


def fingerprints_clear(*, member_id, conflict_key: str, text: str) -> int:
    """The member stated a forgotten fact again: its fingerprints go, it may be kept."""
    matched = _matching(member_id=member_id, conflict_key=conflict_key, text=text)
    if not matched:
        return 0
    deleted, _ = ForgottenFact.objects.filter(member_id=member_id, pk__in=matched).delete()
    return deleted


def actor_handle_retire(*, member_id, actor_handle: str) -> bool:
    """Retire a handle the member asked to forget every mention of. Idempotent."""
    _, created = RetiredActorHandle.objects.get_or_create(
        member_id=member_id,
        actor_handle=actor_handle,
        defaults={"retired_at": timezone.now()},
    )
    return created


def actor_handle_refusal(*, member_id, actor_handle: str) -> str | None:
    """`actor-retired` when the write tags a person the member had Iris forget."""
    if actor_handle and (
        RetiredActorHandle.objects.filter(member_id=member_id, actor_handle=actor_handle).exists()
    ):
        return ACTOR_RETIRED
    return None


def actor_handle_reinstate(*, member_id, actor_handle: str) -> int:
    """The member introduced the person again themselves: the handle may be used."""
    if not actor_handle:
        return 0
    deleted, _ = RetiredActorHandle.objects.filter(
        member_id=member_id, actor_handle=actor_handle
    ).delete()
    return deleted


def fingerprints_erase_member(*, member_id) -> int:
    """A data-rights hard delete: even the digests of what the member forgot go."""
    facts, _ = ForgottenFact.objects.filter(member_id=member_id).delete()
    handles, _ = RetiredActorHandle.objects.filter(member_id=member_id).delete()
    return facts + handles


def _erases_everything(erasure: Erasure) -> bool:
    """Only a purge of everything the member has (a full clear, a data-rights hard
    delete of every scope) takes the fingerprints and retired handles: the member asked
    for nothing to be kept, and neither records fingerprints of what it erases, so
    keeping older ones would leave digests behind while treating a fact forgotten before
    the clear differently from one erased by it. A forget, or a narrower delete, keeps
    them: that is what they exist for."""
    return erasure.purge and erasure.everything


FINGERPRINT_STORE = ContentStore(
    name="forgotten-fact-fingerprints",
    erase=lambda erasure: (
        fingerprints_erase_member(member_id=erasure.member_id) if _erases_everything(erasure) else 0
    ),
    residue=lambda erasure: (
        ForgottenFact.objects.filter(member_id=erasure.member_id).count()
        + RetiredActorHandle.objects.filter(member_id=erasure.member_id).count()
        if _erases_everything(erasure)
        else 0
    ),
    order=95,
    tables=(ForgottenFact._meta.db_table, RetiredActorHandle._meta.db_table),
    extents={
        ExtentKind.FACT: "keeps (adds) the fact's keyed fingerprints: nothing re-creates it",
        ExtentKind.PERSON: "keeps (adds) keyed digests of the person's names: no return",
        ExtentKind.CONVERSATION: "keeps the fingerprints (a forget adds the erased facts')",
        ExtentKind.SCOPE: "keeps the fingerprints (a purge of every scope: deletes them)",
        ExtentKind.CATEGORY: "keeps the fingerprints (a forget adds the erased facts')",
        ExtentKind.EVERYTHING: "a purge deletes every fingerprint and retired name",
    },
)


def fingerprints_store_register() -> None:
    content_store_register(FINGERPRINT_STORE)
