"""Operator accounts and roles: the one audited way they change.

Every operator account creation, role change, tenant change, deactivation and
reactivation goes through here, from the console (/console/operators/), the Django admin
(`iris_site.admin.UserAdmin`), `seed_demo` and `createsuperuser`. Each writes an
`OperatorAccountChange` (who asked, who decided, when: the links four eyes reads, see
`iris_site.operator_links`) and an audit event on the platform chain, in one transaction.
`OperatorProfile.save` refuses any write that does not come through here.

A change that would let its subject approve a four-eyes step (a role in `FOUR_EYES_ROLES`:
the inspection paths' approving roles and `admin`, or widening such a role to every
tenant) is itself a four-eyes action: it waits (`pending`) until a second platform admin,
linked neither to whoever asked nor to the subject, approves it. A new account asked for
with such a role starts as `support` meanwhile. A command run on the server
(`createsuperuser`, `seed_demo`: no person in Iris asked) applies at once, recorded with
no author.
"""

import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import wraps

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from iris_site import operator_links
from iris_site.audit.actions import AuditAction
from iris_site.audit.enums import Severity
from iris_site.audit.events import Actor, audit_event_append
from iris_site.crypto import keyed_digest
from iris_site.enums import AccountChangeKind, AccountChangeState, OperatorRole, UserKind
from iris_site.errors import Conflict, InvalidInput, NotPermitted
from iris_site.models import (
    OperatorAccountChange,
    OperatorProfile,
    OperatorSignIn,
    Tenant,
    User,
)
from iris_site.models.identity import SUPERUSER_RECORDERS, operator_writes

POLICY_ID = "iris.iris_site.operator_accounts.v1"
# The roles that approve a four-eyes step: `inspection.policy.APPROVING_ROLES`' values
# (legal, t&s, admin; iris_site imports no app, a test keeps the two in step) and admin,
# which also decides these changes.
FOUR_EYES_ROLES: frozenset[str] = frozenset(
    {OperatorRole.LEGAL, OperatorRole.TRUST_AND_SAFETY, OperatorRole.ADMIN}
)
STARTING_ROLE = OperatorRole.SUPPORT
DEVICE_COOKIE = "iris_device"

_K = AccountChangeKind
_ST = AccountChangeState
_ACTIONS = {
    _K.CREATED: AuditAction.IRIS_SITE_OPERATOR_ACCOUNT_CREATED,
    _K.ROLE: AuditAction.IRIS_SITE_OPERATOR_ACCOUNT_ROLE_CHANGED,
    _K.TENANT: AuditAction.IRIS_SITE_OPERATOR_ACCOUNT_TENANT_CHANGED,
    _K.DEACTIVATED: AuditAction.IRIS_SITE_OPERATOR_ACCOUNT_DEACTIVATED,
    _K.REACTIVATED: AuditAction.IRIS_SITE_OPERATOR_ACCOUNT_REACTIVATED,
}


def link_window() -> timedelta:
    """How long a change or a shared sign-in links two accounts: setting
    `IRIS_FOUR_EYES_LINK_DAYS` (default 30 days)."""
    return timedelta(days=settings.IRIS_FOUR_EYES_LINK_DAYS)


def role_of(user: User | None) -> str:
    profile = getattr(user, "operator_profile", None) if user is not None else None
    return getattr(profile, "role", "") or ""


def is_platform_admin(user: User | None) -> bool:
    """An active operator bound to no tenant, with the admin role (or a superuser made on
    the server, who has no role)."""
    if user is None or not user.is_active or not user.is_operator:
        return False
    profile = OperatorProfile.objects.filter(user=user).first()
    if profile is None:
        return user.is_superuser
    return profile.tenant_id is None and profile.role == OperatorRole.ADMIN


# --- Links --------------------------------------------------------------------------------


def operators_linked(a: User, b: User, *, now: datetime | None = None) -> tuple[str, ...]:
    """Why accounts `a` and `b` are one person for an approval (`operator_links`); ()
    when Iris knows no link. Reads the changes touching either (any time), every change
    and sign-in within the window."""
    now = now or timezone.now()
    window = link_window()
    since = now - window
    rows = OperatorAccountChange.objects.filter(
        Q(requested_at__gte=since)
        | Q(decided_at__gte=since)
        | Q(subject__in=[a.pk, b.pk])
        | Q(requested_by__in=[a.pk, b.pk])
        | Q(decided_by__in=[a.pk, b.pk])
    )
    changes = [
        operator_links.Change(
            subject=r.subject_id,
            kind=r.kind,
            requested_by=r.requested_by_id,
            requested_at=r.requested_at,
            decided_by=r.decided_by_id,
            decided_at=r.decided_at,
            role_to=r.role_to,
            state=r.state,
        )
        for r in rows
    ]
    signins = [
        operator_links.SignIn(account=s.user_id, device=s.device_digest, at=s.signed_in_at)
        for s in OperatorSignIn.objects.filter(signed_in_at__gte=since)
    ]
    return operator_links.link_reasons(
        a.pk, b.pk, changes=changes, signins=signins, now=now, window=window
    )


def operator_signin_record(*, user: User, device: str, now: datetime | None = None) -> None:
    """Keep an operator's sign-in as the keyed digest of its device cookie; rows older
    than the window go."""
    if not user.is_operator or not device:
        return
    now = now or timezone.now()
    OperatorSignIn.objects.filter(signed_in_at__lt=now - link_window()).delete()
    OperatorSignIn.objects.create(
        user=user, device_digest=keyed_digest(f"device:{device}", length=64), signed_in_at=now
    )


_DEVICE_RE = re.compile(r"^[A-Za-z0-9_-]{32}$")
DEVICE_COOKIE_AGE = 400 * 24 * 3600


def device_signins(view):
    """Wrap a sign-in view: when an operator signs in, keep the keyed digest of the
    browser's device cookie (`iris_device`, 32 random characters, set here if absent or
    malformed) for four eyes' `shared-device` link. Members are not tracked."""

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        user = getattr(request, "user", None)
        before = user.pk if user is not None and user.is_authenticated else None
        response = view(request, *args, **kwargs)
        user = getattr(request, "user", None)
        if (
            user is not None
            and user.is_authenticated
            and user.pk != before
            and getattr(user, "is_operator", False)
        ):
            device = request.COOKIES.get(DEVICE_COOKIE, "")
            if not _DEVICE_RE.match(device):
                device = secrets.token_urlsafe(24)
                response.set_cookie(
                    DEVICE_COOKIE,
                    device,
                    max_age=DEVICE_COOKIE_AGE,
                    secure=settings.SESSION_COOKIE_SECURE,
                    httponly=True,
                    samesite="Lax",
                )
            operator_signin_record(user=user, device=device)
        return response

    return wrapped


# --- Recording ----------------------------------------------------------------------------


def _payload(change: OperatorAccountChange) -> dict:
    def s(value):
        return None if value in (None, "") else str(value)

    return {
        "change_id": str(change.pk),
        "subject_id": str(change.subject_id),
        "kind": change.kind,
        "state": change.state,
        "role_from": s(change.role_from),
        "role_to": s(change.role_to),
        "tenant_from": s(change.tenant_from),
        "tenant_to": s(change.tenant_to),
        "requested_by": s(change.requested_by_id),
        "decided_by": s(change.decided_by_id),
    }


def _actor(by: User | None) -> Actor:
    return Actor.of(by) if by is not None else Actor.system("command")


def _audit(action: str, change: OperatorAccountChange, *, by: User | None, now, **extra):
    audit_event_append(
        action=action,
        policy_id=POLICY_ID,
        actor=_actor(by),
        severity=extra.pop("severity", Severity.INFO),
        payload={**_payload(change), **extra},
        occurred_at=now,
    )


def _require_author(by: User | None, subject: User | None = None) -> None:
    if by is not None and not is_platform_admin(by):
        raise NotPermitted(
            "Only a platform admin changes operator accounts.", code="not-platform-admin"
        )


def _lock(user: User) -> User:
    return User.objects.select_for_update().get(pk=user.pk)


def _pending(subject: User, kind: str):
    return OperatorAccountChange.objects.filter(subject=subject, kind=kind, state=_ST.PENDING)


def _apply(change: OperatorAccountChange) -> None:
    profile = OperatorProfile.objects.get(user_id=change.subject_id)
    if change.kind == _K.ROLE:
        profile.role = change.role_to
    elif change.kind == _K.TENANT:
        profile.tenant_id = change.tenant_to
    profile.full_clean()
    with operator_writes():
        profile.save()


def _needs_second_admin(*, by: User | None, role: str, tenant_id) -> bool:
    """A person asked, and the result could approve a four-eyes step across every tenant
    or within one."""
    return by is not None and role in FOUR_EYES_ROLES


# --- Writes -------------------------------------------------------------------------------


def _valid_role(role: str) -> str:
    if role not in OperatorRole.values:
        raise InvalidInput(fields={"role": [f"Unknown role {role!r}."]})
    return role


@transaction.atomic
def operator_create(
    *,
    email: str,
    password: str | None,
    role: str,
    tenant: Tenant | None = None,
    by: User | None = None,
    now: datetime | None = None,
) -> User:
    """Create an operator account. `by`: the platform admin asking (None: a command on the
    server). With an approving role asked for by a person, the account starts as
    `support` and the role waits for a second admin."""
    _require_author(by)
    _valid_role(role)
    now = now or timezone.now()
    if User.objects.filter(email__iexact=User.objects.normalize_email(email)).exists():
        raise Conflict("An account with this email exists.", code="email-taken")
    pending = _needs_second_admin(by=by, role=role, tenant_id=getattr(tenant, "pk", None))
    start_role = STARTING_ROLE if pending else role
    operator = User.objects.create_user(
        email=email, password=password, kind=UserKind.OPERATOR, is_staff=True
    )
    profile = OperatorProfile(user=operator, role=start_role, tenant=tenant)
    profile.full_clean()
    with operator_writes():
        profile.save()
    created = OperatorAccountChange.objects.create(
        subject=operator,
        kind=_K.CREATED,
        state=_ST.APPLIED,
        role_to=start_role,
        tenant_to=getattr(tenant, "pk", None),
        requested_by=by,
        requested_at=now,
        decided_at=now,
    )
    _audit(_ACTIONS[_K.CREATED], created, by=by, now=now)
    if pending:
        _request(operator, kind=_K.ROLE, role_to=role, by=by, now=now)
    return operator


def operator_superuser_record(user: User) -> None:
    """`createsuperuser`'s account (a superuser with no role), recorded with no author."""
    now = timezone.now()
    created = OperatorAccountChange.objects.create(
        subject=user, kind=_K.CREATED, requested_at=now, decided_at=now
    )
    _audit(_ACTIONS[_K.CREATED], created, by=None, now=now, superuser=True)


if operator_superuser_record not in SUPERUSER_RECORDERS:
    SUPERUSER_RECORDERS.append(operator_superuser_record)


def _request(subject: User, *, kind: str, by: User, now, role_to="", tenant_to=None):
    profile = OperatorProfile.objects.get(user=subject)
    change = OperatorAccountChange.objects.create(
        subject=subject,
        kind=kind,
        state=_ST.PENDING,
        role_from=profile.role,
        role_to=role_to or profile.role,
        tenant_from=profile.tenant_id,
        tenant_to=tenant_to if kind == _K.TENANT else profile.tenant_id,
        requested_by=by,
        requested_at=now,
    )
    _audit(AuditAction.IRIS_SITE_OPERATOR_ACCOUNT_CHANGE_REQUESTED, change, by=by, now=now)
    return change


def _applied(subject: User, *, kind: str, by: User | None, now, **fields):
    change = OperatorAccountChange.objects.create(
        subject=subject,
        kind=kind,
        state=_ST.APPLIED,
        requested_by=by,
        requested_at=now,
        decided_at=now,
        **fields,
    )
    if kind in (_K.ROLE, _K.TENANT):
        _apply(change)
    _audit(_ACTIONS[kind], change, by=by, now=now)
    return change


def _operator_profile(subject: User) -> OperatorProfile:
    profile = OperatorProfile.objects.filter(user=subject).first()
    if not subject.is_operator or profile is None:
        raise InvalidInput("Only an operator with a role has a role to change.", code="no-role")
    return profile


@transaction.atomic
def operator_role_change(
    *, subject: User, role: str, by: User | None, now: datetime | None = None
) -> OperatorAccountChange:
    """Change an operator's role: applied at once, or pending a second admin when the new
    role could approve a four-eyes step (your own role too)."""
    _require_author(by)
    _valid_role(role)
    now = now or timezone.now()
    subject = _lock(subject)
    profile = _operator_profile(subject)
    if profile.role == role:
        raise Conflict("The operator already has this role.", code="role-unchanged")
    if _pending(subject, _K.ROLE).exists():
        raise Conflict("A role change for this operator is already waiting.", code="pending")
    if _needs_second_admin(by=by, role=role, tenant_id=profile.tenant_id):
        return _request(subject, kind=_K.ROLE, role_to=role, by=by, now=now)
    return _applied(
        subject,
        kind=_K.ROLE,
        by=by,
        now=now,
        role_from=profile.role,
        role_to=role,
        tenant_from=profile.tenant_id,
        tenant_to=profile.tenant_id,
    )


@transaction.atomic
def operator_tenant_change(
    *, subject: User, tenant: Tenant | None, by: User | None, now: datetime | None = None
) -> OperatorAccountChange:
    """Bind an operator to one tenant or free it. For an approving role only narrowing
    (from every tenant to one) applies at once: widening to every tenant, or moving to
    another tenant (approving for members it could not approve for before), waits for a
    second admin."""
    _require_author(by)
    now = now or timezone.now()
    subject = _lock(subject)
    profile = _operator_profile(subject)
    tenant_id = getattr(tenant, "pk", None)
    if profile.tenant_id == tenant_id:
        raise Conflict("The operator already has this binding.", code="tenant-unchanged")
    if _pending(subject, _K.TENANT).exists():
        raise Conflict("A tenant change for this operator is already waiting.", code="pending")
    narrowing = profile.tenant_id is None and tenant_id is not None
    if by is not None and profile.role in FOUR_EYES_ROLES and not narrowing:
        return _request(subject, kind=_K.TENANT, tenant_to=tenant_id, by=by, now=now)
    return _applied(
        subject,
        kind=_K.TENANT,
        by=by,
        now=now,
        role_from=profile.role,
        role_to=profile.role,
        tenant_from=profile.tenant_id,
        tenant_to=tenant_id,
    )


@transaction.atomic
def operator_active_set(
    *, subject: User, active: bool, by: User | None, now: datetime | None = None
) -> OperatorAccountChange:
    """Deactivate or reactivate an operator account (never your own)."""
    _require_author(by)
    now = now or timezone.now()
    subject = _lock(subject)
    if not subject.is_operator:
        raise InvalidInput("Only operator accounts change here.", code="not-operator")
    if by is not None and by.pk == subject.pk:
        raise NotPermitted("Your own account is changed by another admin.", code="own-account")
    if subject.is_active == active:
        raise Conflict("The account is already so.", code="unchanged")
    User.objects.filter(pk=subject.pk).update(is_active=active)
    kind = _K.REACTIVATED if active else _K.DEACTIVATED
    return _applied(subject, kind=kind, by=by, now=now)


@dataclass(frozen=True, slots=True)
class DecisionRefusal:
    code: str
    message: str


def decision_refusal(change: OperatorAccountChange, by: User) -> DecisionRefusal | None:
    """Why `by` may not decide this pending change (None: they may)."""
    if change.state != _ST.PENDING:
        return DecisionRefusal("not-pending", "This change is no longer waiting.")
    if not is_platform_admin(by):
        return DecisionRefusal("not-platform-admin", "Only a platform admin decides.")
    if by.pk in (change.requested_by_id, change.subject_id):
        return DecisionRefusal(
            "decider-is-party",
            "A second admin decides: never whoever asked, nor the operator it changes.",
        )
    for other_id in (change.requested_by_id, change.subject_id):
        if other_id is None:
            continue
        other = User.objects.get(pk=other_id)
        reasons = operators_linked(by, other)
        if reasons:
            return DecisionRefusal(
                "decider-linked",
                "You are linked to whoever asked or to the operator it changes ("
                + operator_links.explain(reasons)
                + "): an admin linked to neither decides.",
            )
    return None


def operator_change_decide(
    *, change: OperatorAccountChange, by: User, approve: bool, now: datetime | None = None
) -> OperatorAccountChange:
    """A second platform admin approves (and the change applies) or refuses a pending
    change. A refused attempt to decide is audited, then raised (403/409)."""
    now = now or timezone.now()
    with transaction.atomic():
        locked = OperatorAccountChange.objects.select_for_update().get(pk=change.pk)
        refusal = decision_refusal(locked, by)
        if refusal is None:
            locked.state = _ST.APPLIED if approve else _ST.REFUSED
            locked.decided_by = by
            locked.decided_at = now
            locked.save(update_fields=["state", "decided_by", "decided_at"])
            if approve:
                _apply(locked)
            action = (
                AuditAction.IRIS_SITE_OPERATOR_ACCOUNT_CHANGE_APPROVED
                if approve
                else AuditAction.IRIS_SITE_OPERATOR_ACCOUNT_CHANGE_REFUSED
            )
            _audit(action, locked, by=by, now=now)
            return locked
    with transaction.atomic():
        _audit(
            AuditAction.IRIS_SITE_OPERATOR_ACCOUNT_CHANGE_REJECTED,
            locked,
            by=by,
            now=now,
            severity=Severity.WARNING,
            refusal=refusal.code,
            attempted="approve" if approve else "refuse",
        )
    error = Conflict if refusal.code == "not-pending" else NotPermitted
    raise error(refusal.message, code=refusal.code)


def operator_bypass_refused(*, subject: User | None, by: User | None, field: str) -> None:
    """Record an attempt to change a role or tenant around the service (a raw admin form)."""
    audit_event_append(
        action=AuditAction.IRIS_SITE_OPERATOR_ACCOUNT_CHANGE_REJECTED,
        policy_id=POLICY_ID,
        actor=_actor(by),
        severity=Severity.WARNING,
        payload={
            "subject_id": str(subject.pk) if subject is not None else None,
            "refusal": "operator-change-bypasses-service",
            "field": field,
        },
    )


# --- Reads --------------------------------------------------------------------------------


def operator_changes_recent(limit: int = 50):
    return OperatorAccountChange.objects.select_related(
        "subject", "requested_by", "decided_by"
    ).order_by("-requested_at")[:limit]


def operator_changes_pending():
    return (
        OperatorAccountChange.objects.filter(state=_ST.PENDING)
        .select_related("subject", "requested_by")
        .order_by("requested_at")
    )
