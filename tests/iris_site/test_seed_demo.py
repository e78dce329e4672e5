"""`seed_demo` keeps every demo account's API token across runs (a script or an MCP client
set up with one survives `make run` again) until `--rotate-tokens`; a token revoked
elsewhere never comes back; production settings refuse it."""

import io
import json
import os
import stat
import sys
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from iris_site.models import ApiToken, ServiceClient, Tenant, User
from iris_site.services import token_revoke

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def seed_file(settings, tmp_path) -> Path:
    settings.IRIS_DEMO_TOKEN_SEED_FILE = str(tmp_path / "demo" / "token-seed")
    return Path(settings.IRIS_DEMO_TOKEN_SEED_FILE)


def seed(*args: str) -> dict:
    out = io.StringIO()
    call_command("seed_demo", "--json", *args, stdout=out)
    return json.loads(out.getvalue())


def tokens(data: dict) -> dict[str, str]:
    accounts = data["members"] + data["operators"] + data["service_clients"]
    return {account["id"]: account["token"] for account in accounts}


def authenticates(token: str) -> bool:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return client.get("/api/v1/me/memories/").status_code == 200


def test_a_second_run_keeps_every_demo_token_and_creates_nothing_new(seed_file):
    # given
    first = seed()
    counts = (User.objects.count(), Tenant.objects.count(), ServiceClient.objects.count())
    # when
    second = seed()
    # then
    assert tokens(second) == tokens(first)
    assert len(set(tokens(first).values())) == len(tokens(first))
    assert (User.objects.count(), Tenant.objects.count(), ServiceClient.objects.count()) == counts
    live = ApiToken.objects.filter(label="demo", revoked_at__isnull=True)
    assert live.count() == len(tokens(first)) and ApiToken.objects.count() == live.count()
    member = first["members"][0]["token"]
    operator = first["operators"][0]["token"]
    assert authenticates(member)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {operator}")
    assert client.get("/api/v1/operator/audit-events/").status_code == 200
    # the secret they come from is the checkout's own, readable by its owner only
    assert stat.S_IMODE(seed_file.stat().st_mode) == 0o600


def test_rotating_revokes_every_demo_token_and_the_next_run_keeps_the_new_ones():
    first = seed()
    rotated = seed("--rotate-tokens")
    assert set(tokens(rotated).values()).isdisjoint(tokens(first).values())
    assert tokens(rotated).keys() == tokens(first).keys()
    member_before, member_after = first["members"][0]["token"], rotated["members"][0]["token"]
    assert not authenticates(member_before) and authenticates(member_after)
    assert tokens(seed()) == tokens(rotated)


def test_a_demo_token_revoked_elsewhere_is_never_minted_again():
    # given: the member revoked the demo token (e.g. on their token page)
    first = seed()
    member = User.objects.get(pk=first["members"][0]["id"])
    token_revoke(token=member.api_tokens.get(revoked_at__isnull=True))
    # when
    second = seed()
    # then: a new one for that member; the revoked one stays dead; the others are kept
    revoked, new = first["members"][0]["token"], second["members"][0]["token"]
    assert new != revoked and authenticates(new) and not authenticates(revoked)
    assert {k: v for k, v in tokens(second).items() if k != str(member.pk)} == {
        k: v for k, v in tokens(first).items() if k != str(member.pk)
    }


def test_another_checkout_secret_gives_other_tokens(settings, tmp_path):
    first = seed()
    settings.IRIS_DEMO_TOKEN_SEED_FILE = str(tmp_path / "elsewhere")
    other = seed()
    assert set(tokens(other).values()).isdisjoint(tokens(first).values())


def test_production_settings_refuse_demo_data(settings):
    settings.IRIS_DEMO_TOKEN_SEED_FILE = ""  # as iris_site.production_settings has it
    with pytest.raises(CommandError, match="seed_demo is for development"):
        seed()
    assert not User.objects.exists() and not Tenant.objects.exists()


def test_the_banner_names_the_python_that_ran_it():
    out = io.StringIO()
    call_command("seed_demo", stdout=out)
    python = os.path.relpath(sys.executable, django_settings.BASE_DIR)
    assert f"`{python} manage.py seed_demo --json`" in out.getvalue()
    assert "--rotate-tokens" in out.getvalue()
