"""Forgotten-fact fingerprints: member-namespaced HMACs of a forgotten fact's conflict key
and of its normalised text, so a fact can be recognised when it comes back without its
text being kept.
"""

import hashlib
import hmac
import re
import unicodedata
import uuid
from collections.abc import Iterable

from memory.policy.handles import MIN_ACTOR_SECRET_BYTES

# --- Forgotten-fact fingerprints -------------------------------------------------------

# Domain separation from actor handles and every other HMAC under the same secret.
_FORGOTTEN_FACT_CONTEXT = b"iris.memory.forgotten-fact.v1"
# A forgotten text shorter than this is caught only when a write is exactly that text:
# "yes" or "the dentist" must not block every later sentence that contains them.
FORGOTTEN_FACT_MIN_CONTAINED_TOKENS = 3
_FACT_TOKEN_RE = re.compile(r"[^\W_]+")


def fact_tokens(text: str) -> tuple[str, ...]:
    """The words of a text as a fact is compared: NFKC, casefolded, split on anything
    that is not a letter or digit, so case, spacing and punctuation never tell two
    statements of one fact apart ("Allergic to  PENICILLIN!" is "allergic to penicillin")."""
    return tuple(_FACT_TOKEN_RE.findall(unicodedata.normalize("NFKC", text).casefold()))


def fact_of(text: str) -> tuple[str, ...]:
    """What makes two bodies one fact: their words (`fact_tokens`), or the text itself
    when it has none. A restatement on the write path, the promotion rule's count of
    occurrences and recall's dedupe all compare this."""
    return fact_tokens(text) or (text,)


def _fact_mac(*, secret: bytes, member_id: uuid.UUID | str, kind: bytes, value: str) -> str:
    if len(secret) < MIN_ACTOR_SECRET_BYTES:
        raise ValueError(f"the fingerprint secret needs at least {MIN_ACTOR_SECRET_BYTES} bytes")
    namespace = str(uuid.UUID(str(member_id))).encode("ascii")
    message = b"\x00".join((_FORGOTTEN_FACT_CONTEXT, kind, namespace, value.encode("utf-8")))
    return hmac.new(secret, message, hashlib.sha256).hexdigest()


def fact_text_digest(*, secret: bytes, member_id: uuid.UUID | str, tokens: tuple[str, ...]) -> str:
    """The keyed digest of a normalised text, bound to one member's namespace."""
    return _fact_mac(secret=secret, member_id=member_id, kind=b"text", value=" ".join(tokens))


def fact_key_digest(*, secret: bytes, member_id: uuid.UUID | str, conflict_key: str) -> str | None:
    """The keyed digest of a conflict key that names a subject; None for a key without
    one (`financial::::` is every subject-less financial fact, not one fact)."""
    if not conflict_key.rsplit("::", 1)[-1]:
        return None
    return _fact_mac(secret=secret, member_id=member_id, kind=b"key", value=conflict_key)


def fact_candidate_digests(
    *,
    secret: bytes,
    member_id: uuid.UUID | str,
    text: str,
    lengths: Iterable[int],
) -> set[str]:
    """The digests a text would match: the whole text, and every run of `n` consecutive
    words for each forgotten length `n` long enough to be looked for inside a longer text
    — so a summary that restates a forgotten fact among other sentences is caught."""
    tokens = fact_tokens(text)
    if not tokens:
        return set()
    digests = {fact_text_digest(secret=secret, member_id=member_id, tokens=tokens)}
    for n in set(lengths):
        if FORGOTTEN_FACT_MIN_CONTAINED_TOKENS <= n < len(tokens):
            digests.update(
                fact_text_digest(secret=secret, member_id=member_id, tokens=tokens[i : i + n])
                for i in range(len(tokens) - n + 1)
            )
    return digests
