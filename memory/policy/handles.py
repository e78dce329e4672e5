"""Multi-actor handles: a keyed, member-bound handle for a person the member mentions, so
no name is stored or compared in the clear.
"""

import hashlib
import hmac
import uuid

from memory.policy.names import name_key

# --- Multi-actor handles ----------------------------------------------------------------

ACTOR_HANDLE_PREFIX = "actor_"
# 128 bits of the HMAC: collisions inside one member's namespace are out of reach.
ACTOR_HANDLE_HEX_LENGTH = 32
ACTOR_HANDLE_PATTERN = rf"^{ACTOR_HANDLE_PREFIX}[0-9a-f]{{{ACTOR_HANDLE_HEX_LENGTH}}}$"
MIN_ACTOR_SECRET_BYTES = 16
# Domain separation: the same server secret may key other HMACs without their outputs
# ever being comparable with actor handles.
_ACTOR_HANDLE_CONTEXT = b"iris.memory.actor-handle.v2"


def normalize_actor_name(raw_name: str) -> str:
    """The name's key (`memory.policy.names.name_key`): "Anna Müller", "anna  muller" and
    "ANNA MÜLLER." are one person, and so are look-alikes a reader could not tell apart."""
    name = name_key(raw_name)
    if not name:
        raise ValueError("an actor name needs at least one letter or digit")
    return name


def actor_handle(*, secret: bytes, member_id: uuid.UUID | str, raw_name: str) -> str:
    """An opaque, stable handle for a person a member mentions; never reversible to a name.

    Bound to the member's namespace: the same name mentioned by two members gives two
    unrelated handles, so handles cannot be joined across members.
    """
    if len(secret) < MIN_ACTOR_SECRET_BYTES:
        raise ValueError(f"the actor-handle secret needs at least {MIN_ACTOR_SECRET_BYTES} bytes")
    namespace = str(uuid.UUID(str(member_id)))
    message = b"\x00".join(
        (
            _ACTOR_HANDLE_CONTEXT,
            namespace.encode("ascii"),
            normalize_actor_name(raw_name).encode("utf-8"),
        )
    )
    digest = hmac.new(secret, message, hashlib.sha256).hexdigest()
    return ACTOR_HANDLE_PREFIX + digest[:ACTOR_HANDLE_HEX_LENGTH]
