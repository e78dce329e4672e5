"""The admin console never shows a tenant-bound operator another tenant's rows.

Model permissions are granted per user in the console, so the rule cannot rest on them:
a table that spans every tenant is refused to a tenant-bound operator whatever they were
granted, and the two admins an operator works in (the data-rights queue, inspections)
scope their rows to the operator's tenant.
"""

import pytest
from django.contrib import admin
from django.contrib.auth.models import Permission
from django.test import Client

from iris_site.admin_readonly import PlatformOnlyMixin
from tests.datarights.factories import submit
from tests.iris_site.factories import OperatorFactory, TenantFactory
from tests.memory.factories import consenting_member

pytestmark = pytest.mark.django_db


def changelist(model_admin) -> str:
    meta = model_admin.model._meta
    return f"/admin/{meta.app_label}/{meta.model_name}/"


def test_every_admin_declares_whether_it_spans_tenants():
    """A new admin without a decision fails here, not in production."""
    undecided = [
        type(model_admin).__name__
        for model_admin in admin.site._registry.values()
        if not isinstance(model_admin, PlatformOnlyMixin)
        and not getattr(model_admin, "scopes_by_tenant", False)
    ]
    assert undecided == []


def console(tenant=None) -> Client:
    """An operator granted every view permission there is."""
    operator = OperatorFactory(role="admin", tenant=tenant)
    operator.user_permissions.set(Permission.objects.filter(codename__startswith="view_"))
    client = Client()
    client.force_login(operator)
    return client


@pytest.mark.parametrize(
    "model_admin",
    [m for m in admin.site._registry.values() if isinstance(m, PlatformOnlyMixin)],
    ids=lambda m: type(m).__name__,
)
def test_a_tenant_bound_operator_never_opens_a_cross_tenant_table(model_admin):
    assert console(TenantFactory()).get(changelist(model_admin)).status_code == 403
    assert console().get(changelist(model_admin)).status_code == 200


def test_the_admin_index_lists_no_cross_tenant_table_to_a_tenant_bound_operator():
    page = console(TenantFactory()).get("/admin/").content.decode()
    for model_admin in admin.site._registry.values():
        if isinstance(model_admin, PlatformOnlyMixin):
            assert changelist(model_admin) not in page


def test_the_data_rights_queue_shows_a_tenant_bound_operator_its_tenant_only():
    mine, theirs = TenantFactory(), TenantFactory()
    own = submit(consenting_member(tenants=[mine]))
    other = submit(consenting_member(tenants=[theirs]))
    url = "/admin/datarights/datarightsrequest/"
    page = console(mine).get(url).content.decode()
    assert str(own.pk) in page
    assert str(other.pk) not in page
    assert console(mine).get(f"{url}{other.pk}/change/").status_code == 302  # "not found"
    platform = console().get(url).content.decode()
    assert str(own.pk) in platform and str(other.pk) in platform
