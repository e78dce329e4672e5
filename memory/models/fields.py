"""The conflict key's column: a per-member keyed token, never the words it is made of.

The plain key (`memory.policy.conflicts.conflict_key`: `category::actor_handle::subject`)
spells the subject, so the column holds `conflict_token(member_id, key)` instead: an
HMAC under a key derived from the member's data key (`iris_site.keys.envelope
.member_token`). The same fact gives the same token for one member, so SQL can still
group and join on the column (recall reads a conflict cluster by it); another member's,
or anything once the member's keys are destroyed, matches nothing.

`ConflictKeyField` (an `iris_site.keys.fields.KeyedTokenField`) turns a plain key set on
the instance into its token in `pre_save`, so a writer assigns the plain key as before.
Every other way into the column (`update()`, `bulk_update`, a lookup) refuses a plain
key: readers compare tokens (`conflict_token_read`, which never makes a key). A token
never contains `::`; a plain key always does, so the two are told apart without a
marker. Keys written before this change still read as plain text until `manage.py
keys_encrypt` re-keys them.
"""

from iris_site.keys.envelope import member_token, read_tokens
from iris_site.keys.fields import KeyedTokenField

_SEPARATOR = "::"
_KEY_LABEL = "conflict-key\x1f"  # what the token of a conflict key is labelled with


def is_plain_conflict_key(value) -> bool:
    return isinstance(value, str) and _SEPARATOR in value


def conflict_token(member_id, key: str) -> str:
    """The stored form of the member's plain conflict key (a token passes unchanged).
    For a write: it makes the member's key when they have none."""
    if not is_plain_conflict_key(key):
        return key
    return member_token(member_id, _KEY_LABEL + key)


def conflict_token_read(member_id, key: str) -> str:
    """`conflict_token` for a read (a lookup, a preview, a comparison): the same token
    while the member has a live key, else `envelope.NO_TOKEN`, which matches no stored
    key. A read never makes a key (an erased member's would be one a later write used)."""
    if not is_plain_conflict_key(key):
        return key
    text = _KEY_LABEL + key
    return read_tokens(member_id, [text])[text]


class ConflictKeyField(KeyedTokenField):
    description = "A per-member keyed token of a conflict key"
    PLAIN_FRAGMENT = _SEPARATOR

    def token_of(self, member_id, value: str) -> str:
        return conflict_token(member_id, value)
