from django.apps import AppConfig


class InspectionConfig(AppConfig):
    name = "inspection"
    verbose_name = "Operator inspections"
