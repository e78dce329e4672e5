"""Model fields whose column holds only sealed values (`iris_site.keys.envelope`).

A `SealedTextField` is text in Python and a sealed token in the database: `pre_save`
seals the instance's value under its member's key (read from `member_field` on the
instance), `from_db_value` opens it (an `Unreadable` when it cannot). Nothing else can
write plain text into the column: `QuerySet.update`, `bulk_update` and lookups reach the
database through `get_db_prep_value`, which refuses any value that is not sealed (or
empty). So there is no path that forgets to seal, and no lookup that silently compares
ciphertexts: search and equality use keyed tokens (`envelope.member_token`) instead.

Values written before encryption existed (plain text) still read, until
`manage.py keys_encrypt` has sealed them in place.
"""

import json

from django.core.exceptions import FieldError
from django.db import models

from iris_site.keys.envelope import (
    Unreadable,
    is_sealed,
    member_token,
    open_sealed,
    read_tokens,
    seal,
    unreadable,
)


class UnreadableJSON(dict):
    """The JSON counterpart of `Unreadable`: empty, marked, and saved back unchanged."""

    unreadable = True

    def __init__(self, token: str, reason: str) -> None:
        super().__init__()
        self.token = token
        self.reason = reason


class MemberKeyed:
    """A field whose values are keyed by their row's member: `member_field` names the
    member's id on the instance (a dotted path through a relation is allowed)."""

    def __init__(self, *args, member_field: str = "member_id", **kwargs) -> None:
        self.member_field = member_field
        super().__init__(*args, **kwargs)

    def deconstruct(self):
        name, path, args, kwargs = super().deconstruct()
        if self.member_field != "member_id":
            kwargs["member_field"] = self.member_field
        return name, path, args, kwargs

    def _member_id(self, instance):
        value = instance
        for part in self.member_field.split("."):
            value = getattr(value, part)
        return value


class SealedTextField(MemberKeyed, models.TextField):
    description = "Text sealed under its member's data key"

    @property
    def seal_context(self) -> str:
        return f"{self.model._meta.db_table}.{self.column}"

    def get_lookup(self, lookup_name):
        if lookup_name not in {"isnull", "exact"}:
            raise FieldError(
                f"{self.model.__name__}.{self.name} is sealed: compare keyed tokens instead "
                f"of a {lookup_name!r} lookup"
            )
        return super().get_lookup(lookup_name)

    def _encode(self, value) -> str:
        return value

    def _decode(self, text: str):
        return text

    def _unreadable(self, token: str, reason: str):
        return Unreadable(token, reason)

    def pre_save(self, model_instance, add):
        value = getattr(model_instance, self.attname)
        if unreadable(value):
            return value.token  # cannot be opened: keep exactly what is stored
        if value is None or value == "":
            return value
        return seal(self._member_id(model_instance), self.seal_context, self._encode(value))

    def get_db_prep_value(self, value, connection, prepared=False):
        if value is None or value == "" or is_sealed(value):
            return value
        raise ValueError(
            f"{self.model.__name__}.{self.name} is sealed: it is written only by saving the "
            "model instance (never by update() or a lookup on its text)"
        )

    def from_db_value(self, value, expression, connection):
        if value is None:
            return None
        if not is_sealed(value):
            return self._decode(value)  # written before encryption; `keys_encrypt` seals it
        opened = open_sealed(value, self.seal_context)
        if isinstance(opened, Unreadable):
            return self._unreadable(opened.token, opened.reason)
        return self._decode(opened)

    def to_python(self, value):
        return value


class SealedJSONField(SealedTextField):
    """JSON, sealed as its text (empty containers too: `[]` and `{}` are values)."""

    description = "JSON sealed under its member's data key"

    def _encode(self, value) -> str:
        return json.dumps(value, separators=(",", ":"), sort_keys=True)

    def _decode(self, text: str):
        return json.loads(text) if text else self.get_default()

    def _unreadable(self, token: str, reason: str):
        return UnreadableJSON(token, reason)


class KeyedTokenField(MemberKeyed, models.CharField):
    """A column that holds a per-member keyed token of a plain value (`envelope
    .member_token` of `TOKEN_LABEL` + the value), so SQL can compare and group on it
    without holding the words.

    A subclass says what a plain value looks like (`PLAIN_FRAGMENT`, a substring no token
    has) and labels its tokens (`TOKEN_LABEL`, so equal texts of two columns differ).
    `pre_save` turns a plain value set on the instance into its token; `update()`,
    `bulk_update` and lookups refuse a plain value. Plain values written before tokens
    existed are re-keyed by `keys_encrypt`.
    """

    PLAIN_FRAGMENT = ""
    TOKEN_LABEL = ""

    def is_plain(self, value) -> bool:
        return isinstance(value, str) and self.PLAIN_FRAGMENT in value

    def token_of(self, member_id, value: str) -> str:
        """The stored token of a plain value (a write: makes the member's key if need be)."""
        return member_token(member_id, self.TOKEN_LABEL + value)

    def token_read(self, member_id, value: str) -> str:
        """The same token for a read: `envelope.NO_TOKEN` (matching nothing) when the
        member has no live key; a read never makes one."""
        text = self.TOKEN_LABEL + value
        return read_tokens(member_id, [text])[text]

    def pre_save(self, model_instance, add):
        value = getattr(model_instance, self.attname)
        if self.is_plain(value):
            value = self.token_of(self._member_id(model_instance), value)
            setattr(model_instance, self.attname, value)
        return value

    def get_db_prep_value(self, value, connection, prepared=False):
        if self.is_plain(value):
            raise ValueError(
                f"{self.model.__name__}.{self.name} holds keyed tokens: compare the member's "
                "token of the value, never the plain value"
            )
        return super().get_db_prep_value(value, connection, prepared)
