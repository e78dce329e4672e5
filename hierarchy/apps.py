from django.apps import AppConfig


class HierarchyConfig(AppConfig):
    name = "hierarchy"
    verbose_name = "Memory hierarchy"
