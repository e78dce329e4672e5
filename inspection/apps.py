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
        # A granted inspection covers an audit listing of its member.
        from inspection.audit_cover import KIND, ROLES, VARIANTS, inspection_cover
        from iris_site.audit.sealing import cover_register

        cover_register(KIND, inspection_cover, roles=ROLES, variants=VARIANTS)
