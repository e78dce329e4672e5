"""The registry of content stores: every store declares every extent, and the table in
docs/forgetting.md is the registry's own."""

from pathlib import Path

import pytest

from memory.forgetting.stores import (
    ContentStore,
    ExtentKind,
    UndeclaredExtent,
    content_store,
    content_store_register,
    extent_table,
    registered_stores,
)

DOC = Path(__file__).resolve().parents[2] / "docs" / "forgetting.md"


def test_every_registered_store_declares_how_it_erases_every_extent():
    stores = registered_stores()
    assert len(stores) >= 12
    for store in stores:
        assert set(store.extents) == set(ExtentKind), store.name
        assert all(store.extents[kind].strip() for kind in ExtentKind), store.name


def test_the_registry_refuses_a_store_that_leaves_an_extent_out():
    partial = dict.fromkeys(set(ExtentKind) - {ExtentKind.PERSON}, "erases it")
    with pytest.raises(UndeclaredExtent, match="person"):
        content_store_register(
            ContentStore("half-a-store", erase=lambda e: 0, residue=lambda e: 0, extents=partial)
        )
    with pytest.raises(UndeclaredExtent):
        content_store_register(ContentStore("no-store", erase=lambda e: 0, residue=lambda e: 0))
    assert content_store("half-a-store") is None and content_store("no-store") is None


def test_the_documented_table_is_the_registrys():
    text = DOC.read_text(encoding="utf-8")
    documented = text.split("<!-- forgetting-stores:begin -->\n")[1].split(
        "<!-- forgetting-stores:end -->"
    )[0]
    assert documented == extent_table(), "run: python manage.py forgetting_stores"
