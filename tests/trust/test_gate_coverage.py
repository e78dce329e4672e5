"""Every view that can return member content says so, and a read-gate view proves it.

Derived from the URLconf (every pattern, through every include), so a new view cannot
slip past: each view — the function, or the class behind `.view_class` / `.cls` —
carries an `iris_site.api.gated` declaration; a view declared `content_free` documents
no content field anywhere in its OpenAPI responses (drf-spectacular, generated
in-process, nested schemas and `$ref`s walked); and a view declared `READ_GATE` is
called with member content of every kind it declares present, and must have asked
`memory.access.gate` about each of those kinds while it answered (`gated.gate_watch`).

The Django admin (`admin/`) is left out on purpose: it is not an API of member content
but the operators' console, held by two other rules — every admin declares whether it
spans tenants (`tests/trust/test_admin_tenancy.py`), and memory's admin shows and
searches no content at all (`memory/admin.py`, `tests/memory/test_admin.py`).
"""

import functools

import pytest
from drf_spectacular.generators import SchemaGenerator

from iris_site.api.gated import (
    CONTENT_FREE,
    READ_GATE,
    THROUGH,
    declaration_of,
    gate_watch,
)
from memory.access.gate import ContentKind
from tests.trust.conftest import SERVICES
from tests.trust.test_access_matrix import ROWS, perform, url_patterns

# The Django admin is left out: every admin declares whether it spans tenants
# (test_admin_tenancy.py) and memory's admin shows and searches no content at all
# (memory/admin.py, tests/memory/test_admin.py).
ADMIN = "admin/"

# Response properties that carry what a member said or what was said about them, read
# off the serializers: entry bodies and subjects (also a notice's `entry_body` /
# `proposed_body`), relationship notes and a pause's `notes`, short-term `content`, turn
# `text`, recall rationales (they quote matched terms), and a mentioned person's name.
CONTENT_FIELDS = frozenset(
    {
        "body",
        "subject",
        "entry_body",
        "proposed_body",
        "relationship_note",
        "note",
        "notes",
        "content",
        "text",
        "rationale",
        "rationales",
        "actor_name",
    }
)


def view_of(callback):
    """The class behind an `as_view()` callback (Django `.view_class`, DRF `.cls`)."""
    return getattr(callback, "view_class", None) or getattr(callback, "cls", None)


def declaration(callback):
    return declaration_of(callback) or declaration_of(view_of(callback))


def api_patterns():
    return [p for p in url_patterns() if not p.route.startswith(ADMIN)]


@functools.cache
def generated() -> tuple[dict, dict]:
    """The OpenAPI schema, and the path it gives each view callback (drf-spectacular's own
    naming: `<uuid:pk>` becomes `{id}`)."""
    generator = SchemaGenerator()
    schema = generator.get_schema(request=None, public=True)
    paths = {
        callback: generator.coerce_path(path, method, generator.create_view(callback, method))
        for path, _, method, callback in generator.endpoints
    }
    return schema, paths


def schema() -> dict:
    return generated()[0]


def schema_nodes(node, where: str = "", seen: frozenset[str] = frozenset()):
    """Every schema object under ``node`` with where it is, `$ref`s followed (once per
    branch, so recursive components end)."""
    if isinstance(node, list):
        for item in node:
            yield from schema_nodes(item, where, seen)
        return
    if not isinstance(node, dict):
        return
    ref = node.get("$ref")
    if ref is not None:
        name = ref.rsplit("/", 1)[-1]
        if name not in seen:
            component = schema()["components"]["schemas"][name]
            yield from schema_nodes(component, name, seen | {name})
        return
    yield where, node
    for key, value in node.items():
        inner = where if key == "properties" else f"{where}.{key}".lstrip(".")
        yield from schema_nodes(value, inner, seen)


def is_free_form(node: dict) -> bool:
    """An object whose properties the schema does not name: content could hide there."""
    extra = node.get("additionalProperties")
    if extra is True or extra == {}:
        return True
    return node.get("type") == "object" and "properties" not in node and extra is None


def responses_of(callback) -> dict[str, list]:
    """Per method, the view's documented responses (every status)."""
    operations = schema()["paths"].get(generated()[1].get(callback), {})
    return {
        method: list(operation.get("responses", {}).values())
        for method, operation in operations.items()
        if isinstance(operation, dict)
    }


def documented_content(callback) -> dict[str, set[str]]:
    """Per method, the content fields the view's documented responses carry."""
    found = {
        method: {
            name
            for _, node in schema_nodes(responses)
            for name in CONTENT_FIELDS & set(node.get("properties", {}))
        }
        for method, responses in responses_of(callback).items()
    }
    return {method: names for method, names in found.items() if names}


# Free-form objects a content-free answer may carry: an audit event's payload, which its
# only writer vets to identifiers, enums and numbers (`iris_site.audit.policy.vet_payload`).
VETTED_FREE_FORM = frozenset({"ReplayEventOutput.payload"})


def documented_free_form(callback) -> dict[str, set[str]]:
    found = {
        method: {
            where
            for where, node in schema_nodes(responses)
            if is_free_form(node) and where not in VETTED_FREE_FORM
        }
        for method, responses in responses_of(callback).items()
    }
    return {method: places for method, places in found.items() if places}


# --- declarations -----------------------------------------------------------------------


def test_every_view_declares_whether_it_returns_member_content():
    undeclared = [p.label for p in api_patterns() if declaration(p.callback) is None]
    assert not undeclared, (
        "Declare these views with iris_site.api.gated.content_view(...) or content_free: "
        + "; ".join(undeclared)
    )


def test_every_declaration_names_a_sanctioned_path_and_real_content_kinds():
    wrong = []
    for p in api_patterns():
        found = declaration(p.callback)
        if found in (None, CONTENT_FREE):
            continue
        if found.through not in THROUGH or not found.reads:
            wrong.append(f"{p.label}: {found}")
        wrong += [f"{p.label}: unknown kind {k!r}" for k in found.reads if k not in ContentKind.ALL]
    assert not wrong, "; ".join(wrong)


def test_the_schema_documents_every_api_view():
    """The content-field check below reads the schema: a DRF view missing there would
    pass unseen."""
    documented = {
        callback for callback, path in generated()[1].items() if path in schema()["paths"]
    }
    missing = [
        p.label
        for p in api_patterns()
        if p.route.startswith("api/v1/") and p.callback not in documented
    ]
    assert not missing, "; ".join(missing)


def test_no_content_free_view_documents_a_content_field():
    leaking = [
        f"{p.label} {method.upper()}: {sorted(fields)}"
        for p in api_patterns()
        if declaration(p.callback) == CONTENT_FREE
        for method, fields in documented_content(p.callback).items()
    ]
    assert not leaking, (
        "Declared content_free but its responses carry content fields; declare it "
        "content_view(...) through the path it really takes, or drop the fields: "
        + "; ".join(leaking)
    )


def test_no_content_free_view_answers_with_an_untyped_object():
    """Property names are only checked where the schema names them: a content-free answer
    with an untyped object could carry anything in it unseen."""
    untyped = [
        f"{p.label} {method.upper()}: {sorted(places)}"
        for p in api_patterns()
        if declaration(p.callback) == CONTENT_FREE
        for method, places in documented_free_form(p.callback).items()
    ]
    assert not untyped, "Type these responses (a serializer per object): " + "; ".join(untyped)


def test_the_content_field_check_sees_content_where_there_is_some():
    """The walk itself: the recall response (a `$ref` to an object whose `entries` are an
    array of `$ref`s to objects with a body, a subject and a rationale) carries content."""
    [recall] = [p.callback for p in api_patterns() if p.route.endswith("/recall/")]
    assert {"body", "subject", "rationale"} <= documented_content(recall)["post"]


# --- read-gate views prove they ask the gate --------------------------------------------


def _reads(row) -> bool:
    """A matrix row that reads: a GET, or one whose answer reveals A's content."""
    return row.method == "GET" or bool(row.reveals)


def read_gate_calls():
    """Per READ_GATE route, each reading call of the access matrix (its request recipe)
    by the first surface the matrix expects to be answered (200)."""
    calls, missing = [], []
    for p in api_patterns():
        found = declaration(p.callback)
        if found is None or found.through != READ_GATE:
            continue
        rows = [row for row in ROWS if row.route == p.route and _reads(row)]
        if not rows:
            missing.append(p.label)
        for row in rows:
            surface = next(s for s in SERVICES if row.expect[s] == 200)
            calls.append(pytest.param(row, surface, found.reads, id=f"{row.id} as {surface}"))
    assert not missing, "No reading call in the access matrix for " + "; ".join(missing)
    return calls


@pytest.mark.django_db
@pytest.mark.parametrize(("row", "surface", "kinds"), read_gate_calls())
def test_a_read_gate_view_asks_the_gate_about_every_kind_it_returns(
    trust_world, row, surface, kinds
):
    """Member A owns content of every kind (`tests.trust.conftest.build_world`): a view
    that answers without asking the gate about one of its declared kinds is a bypass."""
    with gate_watch() as consulted:
        response = perform(trust_world, row, surface)
    assert response.status_code == 200, response.content[:300]
    assert set(kinds) <= consulted, (
        f"{row.id} as {surface} returned {sorted(kinds)} content but asked the read gate "
        f"about {sorted(consulted) or 'nothing'}"
    )
