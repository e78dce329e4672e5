from django.apps import AppConfig


class DatarightsConfig(AppConfig):
    name = "datarights"
    verbose_name = "Data rights"

    def ready(self) -> None:
        from datarights.selectors import datarights_request_is_open
        from datarights.services import processing_job_register
        from datarights.stores import EXPORT_FILES_STORE
        from datarights.tasks import process_data_rights_request
        from iris_site.hooks import open_data_rights_request_register
        from memory.forgetting.stores import content_store_register

        content_store_register(EXPORT_FILES_STORE)
        open_data_rights_request_register(datarights_request_is_open)
        processing_job_register(process_data_rights_request)
        # An open request covers an audit listing of its member.
        from datarights.audit_cover import HANDLERS, KIND, VARIANTS, data_rights_cover
        from iris_site.audit.sealing import cover_register

        cover_register(KIND, data_rights_cover, roles=HANDLERS, variants=VARIANTS)
