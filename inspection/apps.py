from django.apps import AppConfig


class InspectionConfig(AppConfig):
    name = "inspection"
