"""Iris's MCP server: the assistant surfaces' REST operations as MCP tools."""
