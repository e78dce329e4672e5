"""Iris's interfaces beside the REST API, over every app: the MCP server (`interfaces.mcp`,
served by `manage.py mcp_serve`). The top layer, with `console`: nothing imports it."""
