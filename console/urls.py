"""Mounted at /console/. Each part of the console keeps its own routes here."""

from django.urls import path

from console import home

app_name = "console"

urlpatterns = [
    path("", home.console_home, name="home"),
]
