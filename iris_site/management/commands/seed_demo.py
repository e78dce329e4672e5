"""Idempotent demo data: tenants, members, one operator per role, a client per surface."""

import json
from importlib import import_module

from django.apps import apps
from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils.module_loading import module_has_submodule

from iris_site.enums import Consumer, OperatorRole
from iris_site.models import ServiceClient, Tenant, TenantMembership, User
from iris_site.services import member_create, operator_create, token_issue, token_revoke

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


class Command(BaseCommand):
    help = "Create (or refresh) the demo data; --json prints ids, logins and fresh tokens."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--json", action="store_true", help="print the demo data as JSON")

    @transaction.atomic
    def handle(self, *args, **options) -> None:
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
                    "token": self._fresh_token(member),
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
                    "token": self._fresh_token(operator),
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
                    "token": self._fresh_token(client),
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

    def _fresh_token(self, owner) -> str:
        """Tokens are stored hashed, so a re-run revokes the old demo token and mints a new one."""
        for token in owner.api_tokens.filter(label=DEMO_TOKEN_LABEL, revoked_at__isnull=True):
            token_revoke(token=token)
        return token_issue(owner=owner, label=DEMO_TOKEN_LABEL)[1]

    def _print_logins(self, data: dict) -> None:
        self.stdout.write(self.style.SUCCESS("Demo data ready. Sign in with:"))
        for member in data["members"]:
            self.stdout.write(f"  member    {member['email']:34} {member['password']}")
        for operator in data["operators"]:
            self.stdout.write(
                f"  operator  {operator['email']:34} {operator['password']}  ({operator['role']})"
            )
        self.stdout.write("Run `python manage.py seed_demo --json` for ids and API tokens.")
