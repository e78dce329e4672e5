import json
import re
from contextvars import ContextVar

from django import forms
from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.contrib.auth.forms import AdminUserCreationForm, UserChangeForm
from django.core.exceptions import PermissionDenied
from django.template.response import TemplateResponse
from django.utils.cache import add_never_cache_headers

from iris_site.admin_readonly import PlatformOnlyMixin, ReadOnlyModelAdmin
from iris_site.audit.events import Actor
from iris_site.audit.listing import Listing, role_events
from iris_site.enums import AccountChangeState, OperatorRole, UserKind
from iris_site.errors import DomainError
from iris_site.models import (
    ApiToken,
    AuditEvent,
    OperatorProfile,
    ServiceClient,
    Tenant,
    TenantMembership,
    User,
)
from iris_site.operators import (
    is_platform_admin,
    operator_active_set,
    operator_bypass_refused,
    operator_create,
    operator_role_change,
    operator_tenant_change,
)
from iris_site.services import token_issue, token_revoke


@admin.action(description="Issue a token (shown once)")
def issue_token(modeladmin, request, queryset):
    """Mint one bearer token for the one selected service client, or for the signed-in
    operator themselves, and show it once, on this response only: never in a message, a
    cookie or the database (only its digest is kept). Revoke it under API tokens."""
    if queryset.count() != 1:
        modeladmin.message_user(request, "Select exactly one to issue a token for.", messages.ERROR)
        return None
    owner = queryset.get()
    if isinstance(owner, User) and owner.pk != request.user.pk:
        # A token for someone else would let the issuer act as them: read a member's
        # memory outside any inspection, or approve as another operator (four eyes).
        modeladmin.message_user(
            request,
            "A person's token is issued only to that person: select yourself.",
            messages.ERROR,
        )
        return None
    token, raw = token_issue(owner=owner, label=f"issued by {request.user.email}")
    response = TemplateResponse(
        request,
        "admin/iris_site/token_issued.html",
        {
            **modeladmin.admin_site.each_context(request),
            "title": "Token issued",
            "owner": owner,
            "token": token,
            "raw": raw,
            "opts": modeladmin.model._meta,
        },
    )
    add_never_cache_headers(response)
    return response


class OperatorProfileInline(admin.StackedInline):
    """Shown, never edited here: roles and tenant bindings change only through
    `iris_site.operators` (the Role and Tenant fields of the user's own form)."""

    model = OperatorProfile
    can_delete = False
    readonly_fields = ["role", "tenant"]
    fields = ["role", "tenant"]
    max_num = 0

    def has_add_permission(self, request, obj=None) -> bool:
        return False


# Keys a hand-made POST would use to write the profile around the service.
_RAW_PROFILE_KEY = re.compile(r"^operator_profile-\d+-(role|tenant)$")
ROLE_CHOICES = [("", "No role (a member)"), *OperatorRole.choices]


class _RoleFields(forms.Form):
    role = forms.ChoiceField(
        label="Role",
        choices=ROLE_CHOICES,
        required=False,
        help_text=(
            "Changed through the audited service: a role that can approve a four-eyes step "
            "(legal, trust & safety, admin) waits for a second platform admin on "
            "/console/operators/."
        ),
    )
    tenant = forms.ModelChoiceField(
        label="Tenant",
        queryset=Tenant.objects.all(),
        required=False,
        help_text="Empty: every tenant (a platform operator).",
    )

    def _refuse_raw_profile_writes(self, subject) -> None:
        raw = sorted(key for key in self.data if _RAW_PROFILE_KEY.match(key))
        if raw:
            operator_bypass_refused(
                subject=subject, by=getattr(self, "request_user", None), field="operator_profile"
            )
            raise forms.ValidationError(
                "Roles and tenant bindings change only through the audited service: "
                "use the Role and Tenant fields.",
                code="operator-change-bypasses-service",
            )


class UserAddForm(_RoleFields, AdminUserCreationForm):
    class Meta(AdminUserCreationForm.Meta):
        model = User
        fields = ("email", "kind")

    def clean(self):
        data = super().clean()
        self._refuse_raw_profile_writes(None)
        kind, role = data.get("kind"), data.get("role")
        if kind == UserKind.OPERATOR and not is_platform_admin(getattr(self, "request_user", None)):
            raise forms.ValidationError(
                "Only a platform admin creates operator accounts.", code="not-platform-admin"
            )
        if kind == UserKind.OPERATOR and not role:
            self.add_error("role", "An operator account needs a role.")
        if kind != UserKind.OPERATOR and (role or data.get("tenant")):
            self.add_error("role", "Only operators have a role or a tenant binding.")
        return data


class UserEditForm(_RoleFields, UserChangeForm):
    class Meta(UserChangeForm.Meta):
        model = User
        fields = "__all__"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        profile = OperatorProfile.objects.filter(user_id=self.instance.pk).first()
        if profile is not None:
            self.fields["role"].initial = profile.role
            self.fields["tenant"].initial = profile.tenant_id
            self.fields["role"].choices = OperatorRole.choices
            self.fields["role"].required = True
        else:
            del self.fields["role"]
            del self.fields["tenant"]

    def clean(self):
        data = super().clean()
        self._refuse_raw_profile_writes(self.instance)
        return data


class TenantMembershipInline(admin.TabularInline):
    model = TenantMembership
    extra = 0


@admin.register(User)
class UserAdmin(PlatformOnlyMixin, DjangoUserAdmin):
    ordering = ["email"]
    list_display = ["email", "kind", "is_active", "is_staff", "date_joined"]
    list_filter = ["kind", "is_active", "is_staff"]
    search_fields = ["email"]
    form = UserEditForm
    add_form = UserAddForm
    fieldsets = [
        (None, {"fields": ["email", "password", "kind"]}),
        ("Access", {"fields": ["is_active", "is_staff", "is_superuser", "groups"]}),
        ("Dates", {"fields": ["last_login", "date_joined"]}),
    ]
    operator_fieldset = (
        "Operator role (through the audited service)",
        {"fields": ["role", "tenant"]},
    )
    add_fieldsets = [
        (None, {"classes": ["wide"], "fields": ["email", "kind", "password1", "password2"]}),
        ("Operator role (through the audited service)", {"fields": ["role", "tenant"]}),
    ]
    # Who may use the admin and with what powers is set on the server (createsuperuser)
    # or follows from the kind; an operator's role is the Role field, through the service.
    readonly_fields = ["kind", "is_staff", "is_superuser", "last_login", "date_joined"]
    inlines = [OperatorProfileInline, TenantMembershipInline]
    actions = [issue_token]

    def get_fieldsets(self, request, obj=None):
        if obj is not None and OperatorProfile.objects.filter(user_id=obj.pk).exists():
            return [*self.fieldsets, self.operator_fieldset]
        return super().get_fieldsets(request, obj)

    def get_readonly_fields(self, request, obj=None):
        return [] if obj is None else self.readonly_fields

    def get_inlines(self, request, obj):
        return [] if obj is None else self.inlines

    def get_form(self, request, obj=None, **kwargs):
        form = super().get_form(request, obj, **kwargs)
        form.request_user = request.user
        return form

    def save_model(self, request, obj, form, change) -> None:
        """Operator accounts, roles, tenant bindings and activation go through
        `iris_site.operators` (recorded and audited, approving roles pending a second
        admin); members and other fields as before."""
        data = form.cleaned_data
        try:
            if not change and obj.kind == UserKind.OPERATOR:
                created = operator_create(
                    email=obj.email,
                    password=data.get("password1") or None,
                    role=data["role"],
                    tenant=data.get("tenant"),
                    by=request.user,
                )
                obj.pk = created.pk
                obj.password = created.password
                obj._state.adding = False
                obj._state.db = created._state.db
                return
            if not change or not obj.is_operator:
                super().save_model(request, obj, form, change)
                return
            active = obj.is_active
            if "is_active" in form.changed_data:
                obj.is_active = not active  # the service sets it
            super().save_model(request, obj, form, change)
            if "is_active" in form.changed_data:
                operator_active_set(subject=obj, active=active, by=request.user)
                obj.is_active = active
            if "role" in form.changed_data:
                change_made = operator_role_change(subject=obj, role=data["role"], by=request.user)
                if change_made.state == AccountChangeState.PENDING:
                    self.message_user(
                        request,
                        "The role change waits for a second platform admin (Console → Operators).",
                        messages.WARNING,
                    )
            if "tenant" in form.changed_data:
                operator_tenant_change(subject=obj, tenant=data.get("tenant"), by=request.user)
        except DomainError as exc:
            self.message_user(request, f"Not changed: {exc.message}", messages.ERROR)

    def has_delete_permission(self, request, obj=None) -> bool:
        """An operator account is never deleted here: deleting it would go unaudited and
        erase the account changes four eyes reads as links (`iris_site.operator_links`);
        it is deactivated, through the service (issue 42)."""
        if obj is not None and obj.is_operator:
            return False
        return super().has_delete_permission(request, obj)

    def delete_queryset(self, request, queryset) -> None:
        """The list's bulk delete spares operator accounts (see `has_delete_permission`)."""
        operators = queryset.filter(kind=UserKind.OPERATOR)
        if operators.exists():
            self.message_user(
                request,
                "Operator accounts are deactivated, never deleted: they were left as they are.",
                messages.ERROR,
            )
        super().delete_queryset(request, queryset.exclude(kind=UserKind.OPERATOR))

    def user_change_password(self, request, id, form_url=""):
        """Only your own password: setting someone else's would let the operator sign in
        as them (a member's memory outside any inspection, another operator's approvals)."""
        if str(id) != str(request.user.pk):
            raise PermissionDenied("A password is set only by its owner.")
        return super().user_change_password(request, id, form_url)


@admin.register(Tenant)
class TenantAdmin(PlatformOnlyMixin, admin.ModelAdmin):
    list_display = ["name", "slug", "created_at"]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ["name"]}


@admin.register(ServiceClient)
class ServiceClientAdmin(PlatformOnlyMixin, admin.ModelAdmin):
    list_display = ["label", "consumer", "is_active", "created_at"]
    list_filter = ["consumer", "is_active"]
    actions = [issue_token]


@admin.register(ApiToken)
class ApiTokenAdmin(PlatformOnlyMixin, admin.ModelAdmin):
    """Tokens are minted from the Users and Service clients lists ("Issue a token", the
    raw value shown once); here they are only revoked."""

    list_display = ["prefix", "label", "user", "service_client", "last_used_at", "revoked_at"]
    list_filter = ["revoked_at"]
    readonly_fields = ["prefix", "user", "service_client", "label", "created_at", "last_used_at"]
    actions = ["revoke"]

    def has_add_permission(self, request) -> bool:
        return False

    @admin.action(description="Revoke selected tokens")
    def revoke(self, request, queryset) -> None:
        for token in queryset:
            token_revoke(token=token)


def _platform_only(site: admin.AdminSite) -> None:
    """The admins other apps registered before ours (auth groups, sign-in lockout logs,
    task results) span every tenant: re-registered as platform-operator tables."""
    for model, model_admin in list(site._registry.items()):
        if isinstance(model_admin, PlatformOnlyMixin):
            continue
        base = type(model_admin)
        site.unregister(model)
        site.register(model, type(base.__name__, (PlatformOnlyMixin, base), {}))


_platform_only(admin.site)


# The listing the audit admin's current page shows payloads through (per request).
_AUDIT_LISTING: ContextVar[Listing | None] = ContextVar("audit_listing", default=None)


# Registered after the platform-only wrapping above, as it was from its old app: the
# audit admin keeps its own (read-only, tenant-scoped) rules.
@admin.register(AuditEvent)
class AuditEventAdmin(ReadOnlyModelAdmin):
    """Read-only: the chain is append-only and only services write to it."""

    list_display = ["sequence", "action", "severity", "actor_type", "actor_role", "occurred_at"]
    list_filter = ["severity", "actor_type", "action"]
    search_fields = ["=id", "=target_member_id", "=target_tenant_id", "action"]
    ordering = ["-sequence"]
    date_hierarchy = "occurred_at"
    # The payload as a listing shows it (`iris_site.audit.listing`): special-category
    # values as `special-category` (the admin is never inside a cover), support's counts
    # only; opening a member's event is recorded in that member's chain.
    fields = [
        "id",
        "sequence",
        "chain_key",
        "chain_sequence",
        "action",
        "policy_id",
        "severity",
        "actor_type",
        "actor_id",
        "actor_role",
        "target_member_id",
        "target_tenant_id",
        "listed_payload",
        "occurred_at",
        "previous_hash",
        "hash",
    ]

    @staticmethod
    def _role(request) -> str:
        profile = getattr(request.user, "operator_profile", None)
        return profile.role if profile is not None else OperatorRole.ADMIN

    def get_queryset(self, request):
        return role_events(super().get_queryset(request), role=self._role(request))

    @admin.display(description="payload")
    def listed_payload(self, obj) -> str:
        listing = _AUDIT_LISTING.get() or Listing(role=OperatorRole.ADMIN)
        return json.dumps(listing.payload(obj), sort_keys=True)

    def change_view(self, request, object_id, form_url="", extra_context=None):
        listing = Listing(role=self._role(request))
        token = _AUDIT_LISTING.set(listing)
        try:
            response = super().change_view(request, object_id, form_url, extra_context)
            if hasattr(response, "render"):
                response.render()  # the payload is read while rendering
            if getattr(response, "status_code", None) == 200:
                listing.record(actor=Actor.of(request.user), surface="admin")
            return response
        finally:
            _AUDIT_LISTING.reset(token)
