import uuid
from contextlib import contextmanager
from contextvars import ContextVar

from django.contrib.auth.base_user import AbstractBaseUser, BaseUserManager
from django.contrib.auth.models import PermissionsMixin
from django.core.exceptions import PermissionDenied
from django.db import models, transaction
from django.db.models import Q
from django.utils import timezone

from iris_site.enums import AccountChangeKind, AccountChangeState, OperatorRole, UserKind

# Called with each superuser `createsuperuser` makes; `iris_site.operators` registers its
# recorder when imported (`IrisSiteConfig.ready`).
SUPERUSER_RECORDERS: list = []


class UserManager(BaseUserManager["User"]):
    use_in_migrations = True

    def create_user(self, email: str, password: str | None = None, **fields) -> "User":
        if not email:
            raise ValueError("email is required")
        user = self.model(email=self.normalize_email(email), **fields)
        user.set_password(password)
        user.full_clean(exclude=["password"])
        user.save(using=self._db)
        return user

    def create_superuser(self, email: str, password: str | None = None, **fields) -> "User":
        """`createsuperuser`: a command run on the server; recorded and audited like every
        operator account by `iris_site.operators` (a `SUPERUSER_RECORDERS` entry, so that
        models import no service), with no person as its author."""
        fields.update(kind=UserKind.OPERATOR, is_staff=True, is_superuser=True)
        with transaction.atomic(using=self._db):
            user = self.create_user(email, password, **fields)
            for record in SUPERUSER_RECORDERS:
                record(user)
        return user


class User(AbstractBaseUser, PermissionsMixin):
    """A person who signs in to Iris: a member, or an operator (staff)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    email = models.EmailField(unique=True)
    kind = models.CharField(max_length=16, choices=UserKind, default=UserKind.MEMBER)
    is_active = models.BooleanField(default=True)
    # Django admin access; only operators may have it (constraint below).
    is_staff = models.BooleanField(default=False)
    date_joined = models.DateTimeField(default=timezone.now)

    objects = UserManager()

    USERNAME_FIELD = "email"
    EMAIL_FIELD = "email"

    class Meta:
        ordering = ["email"]
        constraints = [
            models.CheckConstraint(
                condition=Q(is_staff=False) | Q(kind=UserKind.OPERATOR),
                name="%(app_label)s_%(class)s_staff_is_operator",
                violation_error_message="Only operators may use the admin console.",
            ),
        ]

    def __str__(self) -> str:
        return self.email

    # Service clients authenticate too; permission classes ask which kind of principal.
    is_service = False

    @property
    def is_member(self) -> bool:
        return self.kind == UserKind.MEMBER

    @property
    def is_operator(self) -> bool:
        return self.kind == UserKind.OPERATOR


class Tenant(models.Model):
    """An institution (e.g. a Metis school) whose members' tenant memory stays inside it."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=64, unique=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class TenantMembership(models.Model):
    """A member's belonging to a tenant."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="tenant_memberships")
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "user"],
                name="%(app_label)s_%(class)s_unique_member",
                violation_error_message="This member already belongs to the tenant.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} in {self.tenant_id}"


# Set only by `iris_site.operators` (and test factories, which stand for fixtures): an
# operator's role or tenant binding written anywhere else is refused.
_operator_writes: ContextVar[bool] = ContextVar("operator_writes", default=False)


@contextmanager
def operator_writes():
    token = _operator_writes.set(True)
    try:
        yield
    finally:
        _operator_writes.reset(token)


class OperatorWriteBypassed(PermissionDenied):
    """A role or tenant binding saved around the audited service (`iris_site.operators`)."""

    code = "operator-change-bypasses-service"


class OperatorProfile(models.Model):
    """An operator's role, optionally bound to one tenant (then it sees only that tenant).

    Written only through `iris_site.operators`, which records and audits every change: a
    save from anywhere else (a raw admin form, a shell) raises `OperatorWriteBypassed`.
    """

    user = models.OneToOneField(
        User, on_delete=models.CASCADE, primary_key=True, related_name="operator_profile"
    )
    role = models.CharField(max_length=16, choices=OperatorRole)
    tenant = models.ForeignKey(
        Tenant, on_delete=models.PROTECT, null=True, blank=True, related_name="operators"
    )

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(role__in=OperatorRole.values),
                name="%(app_label)s_%(class)s_role_valid",
                violation_error_message="Unknown operator role.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.role} operator"

    def save(self, *args, **kwargs) -> None:
        if not _operator_writes.get():
            raise OperatorWriteBypassed(
                "Operator roles and tenant bindings change only through iris_site.operators."
            )
        super().save(*args, **kwargs)


class OperatorAccountChange(models.Model):
    """One change to an operator account, made only through `iris_site.operators`: an
    account created, a role or tenant binding changed, an account deactivated or
    reactivated. Who asked for it and who (if anyone) approved it are the links four
    eyes reads: two accounts tied by such a change within the link window are one person
    for an approval. A change that would let its subject approve a four-eyes step waits
    (`pending`) for a second platform admin linked to neither."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    subject = models.ForeignKey(User, on_delete=models.CASCADE, related_name="account_changes")
    kind = models.CharField(max_length=16, choices=AccountChangeKind)
    state = models.CharField(
        max_length=16, choices=AccountChangeState, default=AccountChangeState.APPLIED
    )
    role_from = models.CharField(max_length=16, blank=True)
    role_to = models.CharField(max_length=16, blank=True)
    tenant_from = models.UUIDField(null=True, blank=True)
    tenant_to = models.UUIDField(null=True, blank=True)
    # None: a command run on the server (createsuperuser, seed_demo), not a person in Iris.
    requested_by = models.ForeignKey(
        User, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    decided_by = models.ForeignKey(
        User, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    requested_at = models.DateTimeField(default=timezone.now)
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-requested_at"]
        indexes = [
            models.Index(fields=["subject", "-requested_at"], name="account_change_subject"),
            models.Index(fields=["requested_by", "-requested_at"], name="account_change_actor"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(kind__in=AccountChangeKind.values),
                name="%(app_label)s_%(class)s_kind_valid",
                violation_error_message="Unknown account change.",
            ),
            models.CheckConstraint(
                condition=Q(state__in=AccountChangeState.values),
                name="%(app_label)s_%(class)s_state_valid",
                violation_error_message="Unknown account change state.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} of {self.subject_id} ({self.state})"


class OperatorSignIn(models.Model):
    """An operator's sign-in, kept for four eyes' `shared-device` link: only a keyed digest
    of the browser's device cookie (`iris_device`, random, set at sign-in), never an
    address or a user agent. Rows older than the link window are deleted as new ones come
    (`iris_site.operators.operator_signin_record`)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="operator_signins")
    device_digest = models.CharField(max_length=64)
    signed_in_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-signed_in_at"]
        indexes = [
            models.Index(fields=["device_digest", "signed_in_at"], name="operator_signin_device"),
            models.Index(fields=["user", "signed_in_at"], name="operator_signin_user"),
        ]

    def __str__(self) -> str:
        return f"sign-in of {self.user_id}"
