"""The API docs work on the first try: every operation grouped under a tag with a
summary, and every documented request example, sent as written to a live server with
`make run`'s demo data, answers what the docs say. Tokens are issued in the console."""

import io
import json
import re

import pytest
from django.core.management import call_command
from drf_spectacular.generators import SchemaGenerator

from iris_site.api.docs import EXAMPLE_PATH_VALUES, EXAMPLES, TAGS
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


def test_every_operation_has_one_known_tag_and_a_summary(schema):
    names = [name for name, _ in TAGS]
    assert [tag["name"] for tag in schema["tags"]] == names
    used = set()
    for path, method, operation in _operations(schema):
        assert len(operation["tags"]) == 1 and operation["tags"][0] in names, (method, path)
        assert operation["summary"].strip(), (method, path)
        used.add(operation["tags"][0])
    assert used == set(names)
    assert "## Getting a token" in schema["info"]["description"]


def test_every_example_belongs_to_an_operation_and_documents_its_status(schema):
    by_id = {op["operationId"]: op for _, _, op in _operations(schema)}
    for operation_id, (_, body, status) in EXAMPLES.items():
        operation = by_id[operation_id]
        examples = operation["requestBody"]["content"]["application/json"]["examples"]
        assert examples["demo"]["value"] == body
        assert str(status) in operation["responses"], operation_id


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


@pytest.mark.django_db(transaction=True)
def test_every_documented_example_succeeds_against_the_demo_data(live_server, schema):
    demo = _demo()
    values = {"member_id": demo["members"][0]["id"], **EXAMPLE_PATH_VALUES}
    sent = 0
    for path, method, operation in _operations(schema):
        example = EXAMPLES.get(operation["operationId"])
        if example is None:
            continue
        who, body, status = example
        url = re.sub(r"\{(\w+)\}", lambda m: values[m.group(1)], path)
        response = http_request(
            f"{live_server.url}{url}", method=method.upper(), token=_token(demo, who), body=body
        )
        assert response.status == status, (operation["operationId"], response.body)
        sent += 1
    assert sent == len(EXAMPLES)


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
