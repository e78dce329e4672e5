from django.apps import AppConfig


class InterfacesConfig(AppConfig):
    """Interfaces over every app (the MCP server and its `mcp_serve` command); no models."""

    name = "interfaces"
    label = "interfaces"
    verbose_name = "Interfaces"
