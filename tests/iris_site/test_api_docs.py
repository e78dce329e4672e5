"""The API docs work on the first try: every operation grouped under a tag with a
summary, and every documented request example, sent as written to a live server with
`make run`'s demo data, answers what the docs say. Tokens are issued in the console."""

import io
import json
import re

import pytest
from django.core.management import call_command
from drf_spectacular.generators import SchemaGenerator

from iris_site.api.docs import DEMO_MEMBER, EXAMPLE_PATH_VALUES, EXAMPLES, TAGS
from iris_site.models import ApiToken, ServiceClient
from tests.conftest import http_request
from tests.iris_site.factories import OperatorFactory


@pytest.fixture(scope="module")
def schema():
    return SchemaGenerator().get_schema(request=None, public=True)


def _operations(schema):
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            yield path, method, operation


def test_every_operation_has_one_known_tag(schema):
    names = [name for name, _ in TAGS]
    assert [tag["name"] for tag in schema["tags"]] == names
    used = set()
    for path, method, operation in _operations(schema):
        assert len(operation["tags"]) == 1 and operation["tags"][0] in names, (method, path)
        used.add(operation["tags"][0])
    assert used == set(names)
    assert "## Getting a token" in schema["info"]["description"]


HTTP_METHODS = {"get", "put", "post", "delete", "options", "head", "patch", "trace"}


def test_every_operation_has_its_own_one_line_summary(schema):
    """A summary says what this operation does: not its method, a bare word, a status
    ("Refused"), a cut-off fragment, nor another operation's words (a view's docstring
    that describes two methods gives both the same first sentence)."""
    seen = {}
    for path, method, operation in _operations(schema):
        summary = operation.get("summary", "")
        where = (method.upper(), path, summary)
        assert summary.lower() not in HTTP_METHODS and len(summary.split()) > 1, where
        assert 12 <= len(summary) <= 100, where
        assert not summary.startswith(("Refused", "`")), where
        assert summary.count("`") % 2 == 0 and summary.count("(") == summary.count(")"), where
        assert seen.setdefault(summary, where) == where, (seen[summary], where)


def test_every_example_belongs_to_an_operation_and_documents_its_answer(schema):
    by_id = {op["operationId"]: op for _, _, op in _operations(schema)}
    assert len({example.operation_id for example in EXAMPLES}) == len(EXAMPLES)
    for number, example in enumerate(EXAMPLES, 1):
        operation = by_id[example.operation_id]
        documented = operation["requestBody"]["content"]["application/json"]["examples"]["demo"]
        assert documented["value"] == example.body
        assert documented["summary"].startswith(f"Step {number} of the demo")
        assert str(example.status) in operation["responses"], example.operation_id
        for path, value in example.answers.items():
            assert (
                f"`{path}`" in documented["description"]
                and json.dumps(value) in (documented["description"])
            ), (example.operation_id, path)


def _demo() -> dict:
    out = io.StringIO()
    call_command("seed_demo", "--json", stdout=out)
    return json.loads(out.getvalue())


def _token(demo: dict, who: str) -> str:
    kind, _, name = who.partition(":")
    if kind == "member":
        return next(m["token"] for m in demo["members"] if m["email"] == name)
    if kind == "service":
        return next(c["token"] for c in demo["service_clients"] if c["consumer"] == name)
    return next(o["token"] for o in demo["operators"] if o["role"] == name)


def _filled(value, values: dict):
    """The example with its `{name}`s replaced, as a reader following the steps would."""
    if isinstance(value, dict):
        return {key: _filled(item, values) for key, item in value.items()}
    if isinstance(value, list):
        return [_filled(item, values) for item in value]
    if isinstance(value, str):
        return re.sub(r"\{(\w+)\}", lambda m: _filled(values[m.group(1)], values), value)
    return value


def _found(body, path: str) -> list:
    """Every value at a dotted path of a response body (`*`: each item of a list)."""
    found = [body]
    for key in path.split("."):
        found = [
            item
            for value in found
            for item in ((value or []) if key == "*" else [value.get(key)] if value else [])
        ]
    return found


@pytest.mark.django_db(transaction=True)
def test_every_documented_example_answers_as_documented_against_the_demo_data(live_server, schema):
    demo = _demo()
    where = {op["operationId"]: (path, method) for path, method, op in _operations(schema)}
    member_id = next(m["id"] for m in demo["members"] if m["email"] == DEMO_MEMBER)
    values = {"member_id": member_id, **EXAMPLE_PATH_VALUES}
    answered = {}
    for example in EXAMPLES:
        path, method = where[example.operation_id]
        response = http_request(
            f"{live_server.url}{_filled(path, values)}",
            method=method.upper(),
            token=_token(demo, example.who),
            body=_filled(example.body, values),
        )
        assert response.status == example.status, (example.operation_id, response.body)
        for at, value in example.answers.items():
            assert _filled(value, values) in _found(response.body, at), (
                example.operation_id,
                at,
                response.body,
            )
        for name, at in example.keeps.items():
            (values[name],) = _found(response.body, at)
        answered[example.operation_id] = response.body

    # What the surface remembered as the member's own word is what recall gives back.
    remembered = answered["remember"]
    assert remembered["scope"]["kind"] == "profile" and remembered["origin"] == "user-stated"
    (recalled,) = [
        result for result in answered["recall"]["entries"] if result["id"] == remembered["id"]
    ]
    assert recalled["body"] == remembered["body"] == "Prefers green tea in the afternoon"


@pytest.mark.django_db
def test_a_platform_operator_issues_a_service_token_shown_once(client):
    admin = OperatorFactory(role="admin", is_staff=True, is_superuser=True)
    surface = ServiceClient.objects.create(label="tara-prod", consumer="tara")
    client.force_login(admin)

    page = client.post(
        "/admin/iris_site/serviceclient/",
        {"action": "issue_token", "_selected_action": [str(surface.pk)]},
    )

    assert page.status_code == 200 and "no-store" in page["Cache-Control"]
    raw = re.search(r'value="(iris_[^"]+)"', page.content.decode()).group(1)
    token = ApiToken.objects.get(service_client=surface)
    assert token.prefix == raw[:12] and raw not in str(token.__dict__)
    answered = client.__class__().get(
        f"/api/v1/members/{admin.pk}/short-term/?scope_id=s-1",
        HTTP_AUTHORIZATION=f"Bearer {raw}",
    )
    assert answered.status_code != 401
