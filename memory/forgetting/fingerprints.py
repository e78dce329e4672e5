"""Nothing comes back by itself: keyed fingerprints of forgotten facts, retired handles.

When a member forgets a memory, the erasure service records, before the text goes, an
HMAC (the server's `IRIS_HASH_SECRET`, member-namespaced, see `memory.policy`) of the
entry's conflict key when it names a subject, and of the normalised text of its body
and of every earlier revision's body. Every write path asks `fingerprint_refusal`
before it stores text: a surface, a job, a consolidation or a compaction that would
re-create the fact is refused (`forgotten-fact`). Only the member stating it again
through the member API brings it back, and that statement clears the fingerprint.

"Forget everything about X" retires X's names (handles and the name they were given) the
same way, as keyed digests of their normalised key (`memory.policy.names`): a later write
tagging X, about X or mentioning X by any of those names in any spelling a reader could
not tell apart is refused (`actor-retired`) unless the member writes it themselves.

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
from iris_site.crypto import keyed_digest
from memory.enums import Origin
from memory.forgetting.stores import ContentStore, Erasure, ExtentKind, content_store_register
from memory.models import ForgottenFact, MemoryEntry, MemoryRevision, RetiredName
from memory.policy import conflicts
from memory.policy.fingerprints import (
    fact_candidate_digests,
    fact_key_digest,
    fact_text_digest,
    fact_tokens,
)
from memory.policy.names import name_spans, name_words

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
        # The stored conflict key is the member's keyed token: the fingerprint is of the
        # plain key, as a later write computes it (`memory.services`).
        plain_key = conflicts.conflict_key(
            category=entry.category, actor_handle=entry.actor_handle, subject=entry.subject
        )
        key_digest = (
            fact_key_digest(secret=secret, member_id=member_id, conflict_key=plain_key) or ""
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
    """For each text, whether it restates a forgotten fact's text or mentions a person
    the member had Iris forget (compaction drops those sentences before summarizing)."""
    by_digest, lengths = _forgotten_texts(member_id)
    facts = (
        [bool(m) for m in _text_matches(member_id, texts, by_digest, lengths)]
        if by_digest
        else [False] * len(texts)
    )
    if not RetiredName.objects.filter(member_id=member_id).exists():
        return facts
    return [
        fact or name_refusal(member_id=member_id, text=text) is not None
        for fact, text in zip(facts, texts, strict=True)
    ]


def fingerprints_clear(*, member_id, conflict_key: str, text: str) -> int:
    """The member stated a forgotten fact again: its fingerprints go, it may be kept."""
    matched = _matching(member_id=member_id, conflict_key=conflict_key, text=text)
    if not matched:
        return 0
    deleted, _ = ForgottenFact.objects.filter(member_id=member_id, pk__in=matched).delete()
    return deleted


def _name_digest(member_id, key: str) -> str:
    return keyed_digest(f"retired-name\x1f{member_id}\x1f{key}", length=64)


def names_retire(*, member_id, names: Iterable[str]) -> int:
    """Retire the names of a person the member asked Iris to forget everything about (their
    handles, the name they were given): keyed digests of each name's key
    (`memory.policy.names.name_key`: look-alikes and spacing variants are one name).
    Idempotent; returns how many were new."""
    now = timezone.now()
    rows = {
        (digest := _name_digest(member_id, "".join(words))): RetiredName(
            member_id=member_id, name_digest=digest, word_count=len(words), retired_at=now
        )
        for name in names
        if (words := name_words(name))
    }
    existing = set(
        RetiredName.objects.filter(member_id=member_id, name_digest__in=list(rows)).values_list(
            "name_digest", flat=True
        )
    )
    RetiredName.objects.bulk_create(
        [row for digest, row in rows.items() if digest not in existing], ignore_conflicts=True
    )
    return len(set(rows) - existing)


def _retired_matches(*, member_id, handle: str, subject: str, text: str) -> set[str]:
    """The retired digests this write's handle, subject or text names: the handle and
    subject as a whole, the text by any run of words that is a retired name."""
    retired = dict(
        RetiredName.objects.filter(member_id=member_id).values_list("name_digest", "word_count")
    )
    if not retired:
        return set()
    wanted = {"".join(name_words(v)) for v in (handle, subject)} - {""}
    longest = max(retired.values()) + 2  # a name written in a word or two more
    words = name_words(text)
    for start in range(len(words)):
        run = ""
        for word in words[start : start + longest]:
            run += word
            wanted.add(run)
    return {d for key in wanted if (d := _name_digest(member_id, key)) in retired}


# What a forgotten person's name reads as in a turn logged after they were forgotten.
FORGOTTEN_PERSON = "[someone you asked Iris to forget]"
FORGOTTEN_PERSON_KIND = "forgotten-person"


def names_redact(*, member_id, text: str) -> tuple[str, int]:
    """The text with every mention of a person the member had Iris forget replaced by
    `FORGOTTEN_PERSON` (any spelling a reader could not tell apart), and how many were
    replaced. The conversation log keeps what was said, never who was forgotten."""
    retired = dict(
        RetiredName.objects.filter(member_id=member_id).values_list("name_digest", "word_count")
    )
    if not retired:
        return text, 0
    spans = name_spans(
        text,
        is_name=lambda key: _name_digest(member_id, key) in retired,
        longest=max(retired.values()) + 2,
    )
    for start, end in reversed(spans):
        text = text[:start] + FORGOTTEN_PERSON + text[end:]
    return text, len(spans)


def name_refusal(*, member_id, handle: str = "", subject: str = "", text: str = "") -> str | None:
    """`actor-retired` when the write tags, is about, or mentions a person the member had
    Iris forget everything about (by any of their names, in any spelling a reader could
    not tell apart)."""
    if _retired_matches(member_id=member_id, handle=handle, subject=subject, text=text):
        return ACTOR_RETIRED
    return None


def names_reinstate(*, member_id, handle: str = "", subject: str = "", text: str = "") -> int:
    """The member introduced the person again themselves: their names may be used."""
    matched = _retired_matches(member_id=member_id, handle=handle, subject=subject, text=text)
    if not matched:
        return 0
    deleted, _ = RetiredName.objects.filter(member_id=member_id, name_digest__in=matched).delete()
    return deleted


def fingerprints_erase_member(*, member_id) -> int:
    """A data-rights hard delete: even the digests of what the member forgot go."""
    facts, _ = ForgottenFact.objects.filter(member_id=member_id).delete()
    names, _ = RetiredName.objects.filter(member_id=member_id).delete()
    return facts + names


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
        + RetiredName.objects.filter(member_id=erasure.member_id).count()
        if _erases_everything(erasure)
        else 0
    ),
    order=95,
    tables=(ForgottenFact._meta.db_table, RetiredName._meta.db_table),
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
