"""The envelope (iris_site.keys): sealing, keyed tokens, rotation and shredding, without
the main database: the key store is a SQLite file of the test's own."""

import base64
import json
import uuid

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from iris_site.keys import envelope, kek
from iris_site.keys.envelope import Unreadable, open_sealed, seal
from iris_site.keys.store import KeyStoreUnavailable


@pytest.fixture
def keys(tmp_path, settings):
    """A key store and keyset of this test's own; caches emptied before and after."""

    def reset():
        envelope.cache_clear()
        envelope._store.cache_clear()
        kek._wrapper.cache_clear()

    settings.IRIS_KEYSTORE_PATH = str(tmp_path / "keystore.sqlite3")
    settings.IRIS_KEK = json.dumps(kek.keyset_new("old"))
    reset()
    yield settings
    reset()


def _flip(token: str, at: int) -> str:
    payload = token[len(envelope.PREFIX) :]
    raw = bytearray(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    raw[at % len(raw)] ^= 0x01
    return envelope.PREFIX + base64.urlsafe_b64encode(bytes(raw)).decode().rstrip("=")


@hypothesis_settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=st.text(max_size=300))
def test_a_sealed_value_opens_to_what_was_sealed_and_holds_none_of_it(keys, text):
    member = uuid.uuid4()
    token = seal(member, "memory_memoryentry.body", text)
    assert token.startswith("iris1:")
    assert open_sealed(token, "memory_memoryentry.body") == text
    if len(text) >= 4:
        assert text not in token


@hypothesis_settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(at=st.integers(min_value=0, max_value=10_000))
def test_any_altered_byte_reads_as_unreadable_never_as_text(keys, at):
    token = seal(uuid.uuid4(), "c", "Takes levothyroxine every morning")
    opened = open_sealed(_flip(token, at), "c")
    assert isinstance(opened, Unreadable) and opened == "" and opened.reason in {"fault", "erased"}


def test_a_value_does_not_open_in_another_column(keys):
    token = seal(uuid.uuid4(), "memory_memoryentry.body", "secret")
    opened = open_sealed(token, "memory_memoryentry.subject")
    assert isinstance(opened, Unreadable) and opened.reason == "fault"


def test_the_same_words_give_one_token_per_member_and_different_tokens_across_members(keys):
    alice, bob = uuid.uuid4(), uuid.uuid4()
    assert envelope.member_token(alice, "levothyroxin") == envelope.member_token(
        alice, "levothyroxin"
    )
    assert envelope.member_token(alice, "levothyroxin") != envelope.member_token(
        bob, "levothyroxin"
    )
    assert "levothyroxin" not in envelope.member_token(alice, "levothyroxin")


def test_shredding_makes_every_value_of_that_member_unreadable_and_spares_the_others(keys):
    alice, bob = uuid.uuid4(), uuid.uuid4()
    sealed_alice, sealed_bob = seal(alice, "c", "alice's"), seal(bob, "c", "bob's")
    token_before = envelope.member_token(alice, "word")

    assert envelope.shred(alice) == 1
    envelope.cache_clear()  # another process: nothing cached
    opened = open_sealed(sealed_alice, "c")
    assert isinstance(opened, Unreadable) and opened.reason == "erased"
    assert open_sealed(sealed_bob, "c") == "bob's"

    # The member writes again: a new generation, the old one stays destroyed.
    fresh = seal(alice, "c", "after")
    assert open_sealed(fresh, "c") == "after"
    assert isinstance(open_sealed(sealed_alice, "c"), Unreadable)
    assert envelope.member_token(alice, "word") != token_before


def test_a_file_key_is_one_per_member_and_label_and_goes_with_the_members_keys(keys):
    alice, bob = uuid.uuid4(), uuid.uuid4()
    generation, key = envelope.member_file_key(alice, "export-file:1")
    assert len(key) == 32 and generation == 1
    assert envelope.member_file_key(alice, "export-file:1", generation=generation) == (1, key)
    assert envelope.member_file_key(alice, "export-file:2")[1] != key
    assert envelope.member_file_key(bob, "export-file:1")[1] != key

    envelope.shred(alice)
    envelope.cache_clear()
    assert envelope.member_file_key(alice, "export-file:1", generation=generation) is None
    # Reading never makes a key: only a write does (a new generation, a new file key).
    assert envelope.key_store().latest(str(alice)).destroyed
    assert envelope.member_file_key(alice, "export-file:1") != (generation, key)


def test_a_write_never_lands_under_a_key_another_process_destroyed(keys):
    member = uuid.uuid4()
    seal(member, "c", "first")  # this process now caches generation 1
    envelope.key_store().destroy(str(member))  # another process shreds it
    token = seal(member, "c", "second")
    envelope.cache_clear()
    assert open_sealed(token, "c") == "second"


def test_rotation_rewraps_every_key_and_the_old_kek_can_then_be_removed(keys):
    members = [uuid.uuid4() for _ in range(3)]
    tokens = {m: seal(m, "c", f"value of {m}") for m in members}
    old = json.loads(keys.IRIS_KEK)
    new = kek.keyset_new("new")
    both = {"primary": "new", "keys": {**old["keys"], **new["keys"]}}
    keys.IRIS_KEK = json.dumps(both)
    kek._wrapper.cache_clear()

    store, wrapper = envelope.key_store(), kek.wrapper()
    for record in store.live():
        context = envelope._wrap_context(record.member_id, record.generation)
        data_key = wrapper.unwrap(record.kek_id, record.wrapped, context=context)
        kek_id, wrapped = wrapper.wrap(data_key, context=context)
        assert store.rewrap(record, kek_id=kek_id, wrapped=wrapped)
    assert store.count_by_kek() == {"new": 3}

    keys.IRIS_KEK = json.dumps(new)  # the old key is gone
    kek._wrapper.cache_clear()
    envelope.cache_clear()
    for member, token in tokens.items():
        assert open_sealed(token, "c") == f"value of {member}"


def test_a_key_store_that_cannot_be_opened_fails_closed(keys, tmp_path):
    keys.IRIS_KEYSTORE_PATH = str(tmp_path)  # a directory: no database opens there
    envelope._store.cache_clear()
    with pytest.raises(KeyStoreUnavailable):
        seal(uuid.uuid4(), "c", "anything")


def test_no_keyset_and_no_generation_fails_closed_saying_what_to_provide(settings, tmp_path):
    settings.IRIS_KEK = ""
    settings.IRIS_KEK_FILE = str(tmp_path / "absent.json")
    settings.IRIS_KEK_GENERATE = False
    kek._wrapper.cache_clear()
    kek._last_good.clear()
    try:
        with pytest.raises(KeyStoreUnavailable, match="IRIS_KEK"):
            kek.wrapper()
    finally:
        kek._wrapper.cache_clear()


def test_a_keyset_unreadable_while_serving_keeps_the_last_good_one(keys, tmp_path):
    token = seal(uuid.uuid4(), "c", "kept")
    envelope.cache_clear()
    keys.IRIS_KEK = ""
    keys.IRIS_KEK_FILE = str(tmp_path / "half.json")
    (tmp_path / "half.json").write_text('{"primary": "old", "keys": {"ol')
    assert open_sealed(token, "c") == "kept"


def test_a_generated_keyset_appears_whole_and_private(settings, tmp_path):
    settings.IRIS_KEK = ""
    settings.IRIS_KEK_FILE = str(tmp_path / "keys" / "kek.json")
    settings.IRIS_KEK_GENERATE = True
    text = kek.keyset_text()
    assert kek.keyset_parse(text)[0]
    assert [p.name for p in (tmp_path / "keys").iterdir()] == ["kek.json"]  # no leftovers
    assert (tmp_path / "keys").stat().st_mode & 0o077 == 0


def test_a_malformed_keyset_is_refused_with_its_expected_form():
    from django.core.exceptions import ImproperlyConfigured

    with pytest.raises(ImproperlyConfigured, match="primary"):
        kek.keyset_parse('{"primary": "a", "keys": {"b": "AAAA"}}')
    with pytest.raises(ImproperlyConfigured, match="JSON"):
        kek.keyset_parse("not json")


def test_a_read_never_makes_a_key_and_names_every_text_by_a_token_nothing_has(keys):
    never, erased = uuid.uuid4(), uuid.uuid4()
    written = envelope.member_token(erased, "tea")
    envelope.shred(erased)
    for member in (never, erased):
        assert envelope.read_tokens(member, ["tea"]) == {"tea": envelope.NO_TOKEN}
    assert envelope.key_store().latest(str(never)) is None
    assert envelope.key_store().latest(str(erased)).destroyed
    live = uuid.uuid4()
    assert envelope.read_tokens(live, ["tea"]) == {"tea": envelope.NO_TOKEN}
    assert envelope.read_tokens(erased, ["tea"])["tea"] != written
    written = envelope.member_token(live, "tea")  # the member's first write makes the key
    assert envelope.read_tokens(live, ["tea"]) == {"tea": written}
