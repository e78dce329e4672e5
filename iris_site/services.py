"""Identity writes: accounts, tenant memberships, service clients and their tokens.

Identity is the bottom layer (the episodic chain builds on it), so these writes are
not chained; token use is visible through `ApiToken.last_used_at` and `revoked_at`.
"""

from django.db import transaction
from django.utils import timezone

from iris_site.audit.events import member_chain_lock
from iris_site.enums import UserKind
from iris_site.models import (
    ApiToken,
    ServiceClient,
    Tenant,
    TenantMembership,
    User,
)
from iris_site.tokens import token_digest, token_generate


def member_lock(*, member_id) -> None:
    """Serialize one member's writes inside the caller's transaction (a row lock on the
    member); other members proceed in parallel. On SQLite the IMMEDIATE transaction mode
    already serializes writers, and the lock is a no-op.

    FOR NO KEY UPDATE, not FOR UPDATE: it still excludes every other member lock, but
    not the FOR KEY SHARE that PostgreSQL's deferred foreign-key checks take on the
    member row at COMMIT. With FOR UPDATE, a transaction holding the audit chain's lock
    and committing a row that references the member deadlocked against a member-locked
    writer waiting for the chain (tests/trust/test_concurrency.py).

    Then the member's audit chain (`member_chain_lock`), before the writer locks any of
    their rows: a recall holds the chain while it counts the entries it returned, so a
    writer that locked an entry (an edit, a forget) and then waited for the chain to
    record it deadlocked against that recall. One order for every member-locked writer:
    member, chain, rows."""
    User.objects.select_for_update(no_key=True).filter(pk=member_id).values_list(
        "pk", flat=True
    ).first()
    member_chain_lock(member_id)


@transaction.atomic
def member_create(*, email: str, password: str, tenants: list[Tenant] = ()) -> User:
    member = User.objects.create_user(email=email, password=password, kind=UserKind.MEMBER)
    for tenant in tenants:
        TenantMembership.objects.create(tenant=tenant, user=member)
    return member


def operator_create(
    *, email: str, password: str, role: str, tenant: Tenant | None = None, by: User | None = None
) -> User:
    """Through the audited service (`iris_site.operators.operator_create`)."""
    from iris_site.operators import operator_create as create

    return create(email=email, password=password, role=role, tenant=tenant, by=by)


@transaction.atomic
def token_issue(
    *, owner: User | ServiceClient, label: str = "", raw: str | None = None
) -> tuple[ApiToken, str]:
    """Mint a token; the raw value is returned once and never stored. `raw`: a value the
    caller derived (`seed_demo`'s demo tokens), else a fresh random one."""
    raw = raw or token_generate()
    token = ApiToken(prefix=raw[:12], digest=token_digest(raw), label=label)
    if isinstance(owner, ServiceClient):
        token.service_client = owner
    else:
        token.user = owner
    token.full_clean()
    token.save()
    return token, raw


def token_revoke(*, token: ApiToken) -> ApiToken:
    """Revoke once; revoking again keeps the first revocation time."""
    ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())
    token.refresh_from_db(fields=["revoked_at"])
    return token
