"""Forms of the member memory page. Validation only; the services decide."""

from django import forms
from django.contrib.auth import authenticate

from memory.contracts import MAX_BODY_LENGTH, MAX_SUBJECT_LENGTH
from memory.enums import Lifecycle, MemoryCategory, ScopeKind


class EntryFilterForm(forms.Form):
    q = forms.CharField(label="Search", required=False, max_length=200)
    scope_kind = forms.ChoiceField(
        label="Scope", required=False, choices=[("", "All scopes"), *ScopeKind.choices]
    )
    category = forms.ChoiceField(
        label="Category", required=False, choices=[("", "All categories"), *MemoryCategory.choices]
    )
    lifecycle = forms.ChoiceField(
        label="State",
        required=False,
        choices=[
            ("", "Any state"),
            (Lifecycle.ACTIVE, "Active"),
            (Lifecycle.PAUSED, "Paused"),
            (Lifecycle.DRAFT, "Awaiting your answer"),
            (Lifecycle.SUPERSEDED, "Replaced"),
        ],
    )


class EntryEditForm(forms.Form):
    body = forms.CharField(
        label="What Iris remembers",
        max_length=MAX_BODY_LENGTH,
        widget=forms.Textarea(attrs={"rows": 4}),
        strip=True,
    )
    subject = forms.CharField(
        label="About (optional)",
        required=False,
        max_length=MAX_SUBJECT_LENGTH,
        help_text="A short topic, like “coffee”; memories about the same topic replace each other.",
    )
    category = forms.ChoiceField(label="Category", choices=MemoryCategory.choices)
    # The version the member is editing: a stale one (edited since in another tab) is
    # refused rather than overwriting the newer version.
    revision_id = forms.UUIDField(required=False, widget=forms.HiddenInput)


class PauseForm(forms.Form):
    ends_at = forms.DateTimeField(
        label="Pause until (optional)",
        required=False,
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}),
        help_text="Leave empty to pause until you resume it.",
    )


class ScopeChangeForm(forms.Form):
    kind = forms.ChoiceField(label="Move to")
    session_id = forms.CharField(label="Session", required=False, max_length=128)
    notebook_id = forms.CharField(label="Notebook", required=False, max_length=128)

    def __init__(self, *args, allowed_kinds: list[str], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["kind"].choices = [(k, ScopeKind(k).label) for k in allowed_kinds]

    def scope(self, member_id) -> dict:
        data = self.cleaned_data
        scope = {"kind": data["kind"], "user_id": str(member_id)}
        if data["kind"] == ScopeKind.NOTEBOOK:
            scope["notebook_id"] = data["notebook_id"]
        if data["kind"] == ScopeKind.SESSION:
            scope["session_id"] = data["session_id"]
        return scope


class ForgetCategoryForm(forms.Form):
    category = forms.ChoiceField(label="Category", choices=MemoryCategory.choices)


class PasswordConfirmForm(forms.Form):
    """Step-up: the member re-enters their password before an irreversible clear."""

    password = forms.CharField(
        label="Your password",
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )

    def __init__(self, *args, user, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.user = user

    def clean_password(self) -> str:
        password = self.cleaned_data["password"]
        if authenticate(username=self.user.email, password=password) is None:
            raise forms.ValidationError("That password is not right.")
        return password
