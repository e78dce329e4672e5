from django.apps import AppConfig


class InspectionConfig(AppConfig):
    name = "inspection"
    verbose_name = "Operator inspections"

    def ready(self) -> None:
        # Memory's member surfaces (notices API, "who looked" per memory) learn of
        # inspections through its registry: memory may not import inspection.
        from inspection.disclosures import INSPECTION_DISCLOSURES
        from memory.access.disclosures import disclosure_source_register

        disclosure_source_register(INSPECTION_DISCLOSURES)
