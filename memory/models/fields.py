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

from iris_site.keys.fields import KeyedTokenField


class ConflictKeyField(KeyedTokenField):
    description = "A per-member keyed token of a conflict key"
    PLAIN_FRAGMENT = "::"
    TOKEN_LABEL = "conflict-key\x1f"  # noqa: S105 - a label, not a secret


_FIELD = ConflictKeyField()


def conflict_token(member_id, key: str) -> str:
    """The stored form of the member's plain conflict key (a token passes unchanged).
    For a write: it makes the member's key when they have none."""
    return _FIELD.token_of(member_id, key) if _FIELD.is_plain(key) else key


def conflict_token_read(member_id, key: str) -> str:
    """`conflict_token` for a read (a lookup, a preview, a comparison): the same token
    while the member has a live key, else `envelope.NO_TOKEN`, which matches no stored
    key. A read never makes a key (an erased member's would be one a later write used)."""
    return _FIELD.token_read(member_id, key) if _FIELD.is_plain(key) else key
