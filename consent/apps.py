from django.apps import AppConfig


class ConsentConfig(AppConfig):
    name = "consent"

    def ready(self) -> None:
        # The audit chain seals special-category values (a sensitive category, a consent
        # type naming one) and listings neutralise them: the foundation learns which
        # values those are here, as it may not import consent.
        from consent.enums import SensitiveCategory, category_consent_type
        from iris_site.audit.sealing import sensitive_values_register

        sensitive_values_register(SensitiveCategory.values)
        sensitive_values_register(category_consent_type(c) for c in SensitiveCategory.values)
