"""The "Your data" page's forms. They only collect input: the payload rules live in
`datarights.contracts`, whose refusals come back to the page as messages."""

from django import forms

from datarights.contracts import DAY_MS
from datarights.crypto import MIN_PASSPHRASE_LENGTH
from datarights.enums import DeleteMode
from iris_site.stepup import PasswordConfirmForm
from memory.labels import CATEGORY_CHOICES, SCOPE_CHOICES


class ExportForm(forms.Form):
    scopes = forms.MultipleChoiceField(
        label="Which memory",
        choices=SCOPE_CHOICES,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="Leave all unticked for everything your choices below allow.",
    )
    include_consents = forms.BooleanField(label="My consent history", required=False, initial=True)
    include_opt_outs = forms.BooleanField(label="My opt-outs", required=False, initial=True)
    include_notebooks = forms.BooleanField(label="Notebook memory", required=False, initial=True)
    include_session_memory = forms.BooleanField(
        label="Conversation (session) memory and turns", required=False, initial=True
    )
    include_scene_memory = forms.BooleanField(label="Scene memory", required=False, initial=True)
    include_pose_memory = forms.BooleanField(
        label="Pose memory (aggregate alignment data)", required=False, initial=True
    )
    encrypted = forms.BooleanField(label="Encrypt the file with a passphrase", required=False)
    passphrase = forms.CharField(
        label="Passphrase",
        required=False,
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
        help_text=f"At least {MIN_PASSPHRASE_LENGTH} characters. Iris never stores it: "
        "without it the file cannot be opened.",
    )

    def payload(self) -> dict:
        data = self.cleaned_data
        return {
            "scopes": data["scopes"],
            "format": "json",
            "delivery_channel": "download",
            **{
                name: bool(data[name])
                for name in (
                    "include_consents",
                    "include_opt_outs",
                    "include_notebooks",
                    "include_session_memory",
                    "include_scene_memory",
                    "include_pose_memory",
                    "encrypted",
                )
            },
        }


class DeleteForm(PasswordConfirmForm):
    """Step-up: the member re-enters their password before asking for an erasure (the
    one password check of `iris_site.stepup`, last on the form)."""

    field_order = ("mode", "scopes", "categories", "grace_days", "purge_consent_ledger")

    mode = forms.ChoiceField(
        label="How",
        choices=[
            (DeleteMode.SOFT, "Hide now, erase after a grace period (I can change my mind)"),
            (DeleteMode.HARD, "Erase now, for good"),
        ],
        initial=DeleteMode.SOFT,
        widget=forms.RadioSelect,
    )
    scopes = forms.MultipleChoiceField(
        label="Memory in these places",
        choices=SCOPE_CHOICES,
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )
    categories = forms.MultipleChoiceField(
        label="About these topics",
        choices=CATEGORY_CHOICES,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="Tick places, topics, or both (then only memory matching both).",
    )
    grace_days = forms.IntegerField(
        label="Grace period in days (soft only)",
        min_value=1,
        max_value=30,
        initial=7,
        required=False,
    )
    purge_consent_ledger = forms.BooleanField(
        label="Also erase my consent history for the sensitive topics ticked", required=False
    )

    def payload(self) -> dict:
        data = self.cleaned_data
        soft = data["mode"] == DeleteMode.SOFT
        return {
            "mode": data["mode"],
            "scopes": data["scopes"],
            "categories": data["categories"],
            "purge_consent_ledger": bool(data["purge_consent_ledger"]),
            "retention_grace_ms": (data["grace_days"] or 7) * DAY_MS if soft else 0,
        }


class AccessForm(forms.Form):
    include_operator_actions = forms.BooleanField(
        label="Include what operators did with my memory", required=False
    )


class VerifyCodeForm(forms.Form):
    code = forms.RegexField(
        label="Confirmation code",
        regex=r"^\s*\d{6}\s*$",
        required=False,
        widget=forms.TextInput(attrs={"inputmode": "numeric", "autocomplete": "one-time-code"}),
    )


class AppealForm(forms.Form):
    reason = forms.CharField(
        label="What do you contest?", max_length=2000, widget=forms.Textarea(attrs={"rows": 3})
    )
