from django.apps import AppConfig


class DatarightsConfig(AppConfig):
    name = "datarights"
    verbose_name = "Data rights"
