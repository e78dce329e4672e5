"""Site plumbing: health, pages, API docs offline, production settings, demo data."""

import json
import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client
from rest_framework.test import APIClient

from iris_site.models import ApiToken, ServiceClient, Tenant, User
from tests.iris_site.factories import PASSWORD, MemberFactory

pytestmark = pytest.mark.django_db
PROJECT_ROOT = Path(__file__).resolve().parents[2]


def test_healthz_reports_the_database():
    response = Client().get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok"}


def test_login_page_signs_a_member_in_and_logout_signs_out():
    member = MemberFactory()
    client = Client()
    page = client.get("/accounts/login/")
    assert page.status_code == 200
    assert b'<label for="id_username">Email</label>' in page.content
    signed_in = client.post(
        "/accounts/login/", {"username": member.email, "password": PASSWORD}, follow=True
    )
    assert signed_in.context["user"] == member
    client.post("/accounts/logout/")
    assert client.get("/").context["user"].is_authenticated is False


def test_login_page_explains_a_wrong_password():
    member = MemberFactory()
    response = Client().post("/accounts/login/", {"username": member.email, "password": "nope"})
    assert response.status_code == 200
    assert b'role="alert"' in response.content


def test_docs_page_loads_its_assets_from_this_server_only():
    response = Client().get("/api/docs/")
    assert response.status_code == 200
    html = response.content.decode()
    external = [url for url in re.findall(r'(?:src|href)="([^"]+)"', html) if "://" in url]
    assert external == []
    for asset in re.findall(r'(?:src|href)="(/static/[^"]+)"', html):
        assert Client().get(asset).status_code == 200, asset


def test_schema_describes_the_operator_audit_api():
    schema = APIClient().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert schema.status_code == 200
    document = json.loads(schema.content)
    assert "/api/v1/operator/audit-events/" in document["paths"]
    assert document["components"]["securitySchemes"]["bearerAuth"]["scheme"] == "bearer"


def test_every_api_operation_documents_rate_limits_and_outages():
    """Any call may be throttled (429, with Retry-After) or meet a database that cannot
    answer (503): clients read both from the schema, for every operation."""
    schema = APIClient().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    operations = [
        (path, method, operation)
        for path, item in json.loads(schema.content)["paths"].items()
        for method, operation in item.items()
    ]
    assert operations
    for path, method, operation in operations:
        responses = operation["responses"]
        assert {"406", "429", "503"} <= responses.keys(), (method, path)
        assert "Retry-After" in responses["429"]["headers"], (method, path)


def test_production_settings_pass_the_deploy_check(tmp_path):
    env = {
        **os.environ,
        # A private database: the checks open a connection, and the dev database may be busy.
        "DATABASE_URL": f"sqlite:///{tmp_path / 'deploy-check.sqlite3'}",
        "DJANGO_SETTINGS_MODULE": "iris_site.production_settings",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "iris.example",
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_production_settings_refuse_to_start_without_a_key_encryption_key(tmp_path):
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "iris_site.production_settings",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "IRIS_KEK": "",
        "IRIS_KEK_FILE": str(tmp_path / "no-such-keyset.json"),
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode != 0
    assert "key-encryption key" in result.stderr and "IRIS_KEK" in result.stderr


def test_production_settings_refuse_a_missing_secret_key():
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "iris_site.production_settings",
        "SECRET_KEY": "",
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr


def _seed(capsys) -> dict:
    call_command("seed_demo", "--json")
    return json.loads(capsys.readouterr().out)


def test_seed_demo_json_has_the_documented_shape(capsys):
    data = _seed(capsys)
    assert set(data) == {"tenants", "members", "operators", "service_clients"}
    assert {"id", "name"} <= set(data["tenants"][0])
    assert {"id", "email", "password", "token", "tenant_ids"} <= set(data["members"][0])
    assert {"id", "email", "password", "token", "role", "tenant_id"} <= set(data["operators"][0])
    assert {"consumer", "token"} <= set(data["service_clients"][0])
    assert {o["role"] for o in data["operators"]} == {"support", "admin", "t&s", "legal"}
    assert {"assistant", "shell", "tara", "psyche"} <= {
        c["consumer"] for c in data["service_clients"]
    }
    by_tenant: dict[str, int] = {}
    for member in data["members"]:
        for tenant_id in member["tenant_ids"]:
            by_tenant[tenant_id] = by_tenant.get(tenant_id, 0) + 1
    assert sorted(by_tenant.values()) == [1, 2]


def test_seed_demo_is_idempotent_and_keeps_its_tokens(capsys):
    first = _seed(capsys)
    counts = (User.objects.count(), Tenant.objects.count(), ServiceClient.objects.count())
    second = _seed(capsys)
    assert (User.objects.count(), Tenant.objects.count(), ServiceClient.objects.count()) == counts
    assert [m["id"] for m in first["members"]] == [m["id"] for m in second["members"]]
    owners = len(second["members"]) + len(second["operators"]) + len(second["service_clients"])
    assert ApiToken.objects.filter(label="demo", revoked_at__isnull=True).count() == owners
    # the same token on every run (rotating: tests/iris_site/test_seed_demo.py)
    assert first["operators"][0]["token"] == second["operators"][0]["token"]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {second['operators'][0]['token']}")
    assert client.get("/api/v1/operator/audit-events/").status_code == 200
