"""Idempotent demo data: tenants, members, one operator per role, a client per surface.

Every demo account keeps its API token across runs, so a script or an MCP client set up
with one survives `make run` again; `--rotate-tokens` revokes them and mints new ones.
Tokens are stored only as digests, so the demo ones are derived: an HMAC of this
checkout's demo secret (`IRIS_DEMO_TOKEN_SEED_FILE`, generated 0600 on first use, beside
the development keys in `var/`) with the account and how many demo tokens it has had
revoked. Whoever can read that file can already read the keys to the demo's data; a
revoked token is never derived again; production settings have no seed, and there the
command refuses to run at all.
"""

import base64
import contextlib
import hashlib
import hmac
import json
import os
import secrets
import sys
from importlib import import_module
from pathlib import Path

from django.apps import apps
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.utils.module_loading import module_has_submodule

from iris_site.enums import Consumer, OperatorRole
from iris_site.models import ServiceClient, Tenant, TenantMembership, User
from iris_site.services import member_create, operator_create, token_issue, token_revoke
from iris_site.tokens import TOKEN_PREFIX, token_digest

DEMO_PASSWORD = "iris-demo-2026"  # noqa: S105 - demo only, printed to the operator on purpose
DEMO_TOKEN_LABEL = "demo"  # noqa: S105 - a label, not a secret
TENANTS = [("northwind-learning", "Northwind Learning"), ("harbor-health", "Harbor Health")]
MEMBERS = [
    ("ada@iris.example", ["northwind-learning"]),
    ("ben@iris.example", ["northwind-learning"]),
    ("chloe@iris.example", ["harbor-health"]),
]
OPERATORS = [
    ("support@iris.example", OperatorRole.SUPPORT, None),
    ("admin@iris.example", OperatorRole.ADMIN, None),
    ("trust@iris.example", OperatorRole.TRUST_AND_SAFETY, None),
    ("legal@iris.example", OperatorRole.LEGAL, None),
    # The second pair of eyes on legal's sensitive inspections (four eyes).
    ("legal-review@iris.example", OperatorRole.LEGAL, None),
    ("support-northwind@iris.example", OperatorRole.SUPPORT, "northwind-learning"),
]


def demo_seed() -> bytes:
    """This checkout's demo secret: the file's, generated (mode 0600) when missing."""
    if not settings.IRIS_DEMO_TOKEN_SEED_FILE:
        raise CommandError(
            "seed_demo is for development: these settings have no IRIS_DEMO_TOKEN_SEED_FILE "
            "(production settings never load demo accounts)"
        )
    path = Path(settings.IRIS_DEMO_TOKEN_SEED_FILE)
    if not path.exists():
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        with contextlib.suppress(FileExistsError):  # another run generated it first
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as out:
                out.write(secrets.token_hex(32))
    return bytes.fromhex(path.read_text().strip())


def python_command() -> str:
    """How to call the Python running this, as typed in the project's directory."""
    here = Path(sys.executable)
    return (
        str(here.relative_to(settings.BASE_DIR))
        if here.is_relative_to(settings.BASE_DIR)
        else str(here)
    )


class Command(BaseCommand):
    help = (
        "Create (or refresh) the demo data; --json prints ids, logins and API tokens (the "
        "same on every run unless --rotate-tokens)."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--json", action="store_true", help="print the demo data as JSON")
        parser.add_argument(
            "--rotate-tokens",
            action="store_true",
            help="revoke every demo account's API token and mint a new one",
        )

    @transaction.atomic
    def handle(self, *args, **options) -> None:
        self.seed = demo_seed()
        self.rotate = options["rotate_tokens"]
        tenants = {
            slug: Tenant.objects.get_or_create(slug=slug, defaults={"name": name})[0]
            for slug, name in TENANTS
        }
        data = {"tenants": [{"id": str(t.id), "name": t.name} for t in tenants.values()]}

        data["members"] = []
        for email, slugs in MEMBERS:
            member = User.objects.filter(email=email).first() or member_create(
                email=email, password=DEMO_PASSWORD
            )
            for slug in slugs:
                TenantMembership.objects.get_or_create(tenant=tenants[slug], user=member)
            data["members"].append(
                {
                    "id": str(member.id),
                    "email": email,
                    "password": DEMO_PASSWORD,
                    "token": self._demo_token(member),
                    "tenant_ids": [str(tenants[s].id) for s in slugs],
                }
            )

        data["operators"] = []
        for email, role, slug in OPERATORS:
            tenant = tenants[slug] if slug else None
            operator = User.objects.filter(email=email).first() or operator_create(
                email=email, password=DEMO_PASSWORD, role=role, tenant=tenant
            )
            if role == OperatorRole.ADMIN and not operator.is_superuser:
                # The demo's platform admin can open every console page; memory content
                # stays hidden there for everyone (only a granted inspection shows it).
                operator.is_superuser = True
                operator.save(update_fields=["is_superuser"])
            data["operators"].append(
                {
                    "id": str(operator.id),
                    "email": email,
                    "password": DEMO_PASSWORD,
                    "token": self._demo_token(operator),
                    "role": role.value,
                    "tenant_id": str(tenant.id) if tenant else None,
                }
            )

        data["service_clients"] = []
        for consumer in Consumer:
            client, _ = ServiceClient.objects.get_or_create(
                label=f"demo-{consumer.value}", defaults={"consumer": consumer}
            )
            data["service_clients"].append(
                {
                    "id": str(client.id),
                    "consumer": consumer.value,
                    "token": self._demo_token(client),
                }
            )

        # Each app adds its own demo data through an optional `<app>.demo.seed(data)`,
        # in INSTALLED_APPS order, so identity never imports the layers above it.
        for app_config in apps.get_app_configs():
            if module_has_submodule(app_config.module, "demo"):
                import_module(f"{app_config.name}.demo").seed(data)

        if options["json"]:
            self.stdout.write(json.dumps(data, indent=2))
        else:
            self._print_logins(data)

    def _derived(self, owner, generation: int) -> str:
        message = f"{owner._meta.label}:{owner.pk}:{generation}".encode()
        digest = hmac.new(self.seed, message, hashlib.sha256).digest()
        return TOKEN_PREFIX + base64.urlsafe_b64encode(digest).decode().rstrip("=")

    def _demo_token(self, owner) -> str:
        """The owner's demo token: the one it has, while it is its only live demo token and
        not rotated; else every live one is revoked and the next one derived."""
        demo = owner.api_tokens.filter(label=DEMO_TOKEN_LABEL)
        live = list(demo.filter(revoked_at__isnull=True))
        raw = self._derived(owner, generation=demo.count() - len(live))
        if not self.rotate and [t.digest for t in live] == [token_digest(raw)]:
            return raw
        for token in live:
            token_revoke(token=token)
        raw = self._derived(owner, generation=demo.count())
        return token_issue(owner=owner, label=DEMO_TOKEN_LABEL, raw=raw)[1]

    def _print_logins(self, data: dict) -> None:
        self.stdout.write(self.style.SUCCESS("Demo data ready. Sign in with:"))
        for member in data["members"]:
            self.stdout.write(f"  member    {member['email']:34} {member['password']}")
        for operator in data["operators"]:
            self.stdout.write(
                f"  operator  {operator['email']:34} {operator['password']}  ({operator['role']})"
            )
        self.stdout.write(
            f"Run `{python_command()} manage.py seed_demo --json` for ids and API tokens "
            "(the same on every run; `--rotate-tokens` replaces them)."
        )
