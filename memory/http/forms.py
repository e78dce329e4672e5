"""Forms of the member memory page. Validation only; the services decide."""

from django import forms

from memory.contracts import MAX_BODY_LENGTH, MAX_SUBJECT_LENGTH
from memory.enums import Lifecycle, ScopeKind
from memory.labels import CATEGORY_CHOICES, SCOPE_CHOICES, scope_label


class EntryFilterForm(forms.Form):
    q = forms.CharField(label="Search", required=False, max_length=200)
    scope_kind = forms.ChoiceField(
        label="Scope", required=False, choices=[("", "All scopes"), *SCOPE_CHOICES]
    )
    category = forms.ChoiceField(
        label="Category", required=False, choices=[("", "All categories"), *CATEGORY_CHOICES]
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
    category = forms.ChoiceField(label="Category", choices=CATEGORY_CHOICES)
    # The version the member is editing: a stale one (edited since in another tab) is
    # refused rather than overwriting the newer version.
    revision_id = forms.UUIDField(required=False, widget=forms.HiddenInput)


class PauseForm(forms.Form):
    ends_at = forms.DateTimeField(
        label="Pause until (optional)",
        required=False,
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}),
        help_text=(
            "While paused, no assistant recalls this memory; nothing is erased. Leave the "
            "date empty to pause until you resume it."
        ),
    )


class ScopeChangeForm(forms.Form):
    """Where a memory moves. Only the places it may move to are offered, and only the
    fields those places need: a notebook (one the member has, or a new one's name) or a
    conversation. A missing one is an error on that field, not at the top."""

    NEW_NOTEBOOK = "__new__"

    kind = forms.ChoiceField(label="Move to")
    notebook = forms.ChoiceField(label="Which notebook", required=False)
    new_notebook = forms.CharField(label="New notebook's name", required=False, max_length=128)
    session_id = forms.CharField(label="Which conversation", required=False, max_length=128)

    def __init__(self, *args, allowed_kinds: list[str], notebooks: list[str] = (), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["kind"].choices = [(k, scope_label(k)) for k in allowed_kinds]
        if ScopeKind.NOTEBOOK in allowed_kinds:
            self.fields["notebook"].choices = [
                ("", "Choose a notebook"),
                *((n, n) for n in notebooks),
                (self.NEW_NOTEBOOK, "A new notebook"),
            ]
        else:
            del self.fields["notebook"], self.fields["new_notebook"]
        if ScopeKind.SESSION not in allowed_kinds:
            del self.fields["session_id"]

    def add_error(self, field, error):
        super().add_error(field, error)
        # A field with an error says so to assistive technology, and points at the error.
        for name in self.errors:
            if name in self.fields:
                self.fields[name].widget.attrs.update(
                    {"aria-invalid": "true", "aria-describedby": f"id_{name}-error"}
                )

    def clean(self):
        data = super().clean()
        kind = data.get("kind")
        if kind == ScopeKind.NOTEBOOK:
            chosen = data.get("notebook") or ""
            name = (data.get("new_notebook") or "").strip()
            if chosen == self.NEW_NOTEBOOK or not chosen:
                if not name:
                    field = "new_notebook" if chosen == self.NEW_NOTEBOOK else "notebook"
                    self.add_error(field, "Choose a notebook, or name a new one.")
                data["notebook_id"] = name
            else:
                data["notebook_id"] = chosen
        if kind == ScopeKind.SESSION and not (data.get("session_id") or "").strip():
            self.add_error("session_id", "Name the conversation to move it to.")
        return data

    def scope(self, member_id) -> dict:
        data = self.cleaned_data
        scope = {"kind": data["kind"], "user_id": str(member_id)}
        if data["kind"] == ScopeKind.NOTEBOOK:
            scope["notebook_id"] = data["notebook_id"]
        if data["kind"] == ScopeKind.SESSION:
            scope["session_id"] = data["session_id"].strip()
        return scope


class ForgetCategoryForm(forms.Form):
    category = forms.ChoiceField(label="Category", choices=CATEGORY_CHOICES)
