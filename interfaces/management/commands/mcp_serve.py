import logging
import os

import uvicorn
from django.core.management.base import BaseCommand

from interfaces.mcp.server import MCP_PATH, mcp_http_app, uvicorn_config


class Command(BaseCommand):
    help = (
        "Serve Iris's MCP server (streamable HTTP) at http://HOST:PORT/mcp; clients "
        "authenticate with a service client's bearer token, as for the REST API."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8001)
        parser.add_argument(
            "--issuer-url",
            default=os.environ.get("IRIS_SITE_URL", "http://127.0.0.1:8000/"),
            help="Where service-client tokens are issued: the Iris site (env IRIS_SITE_URL).",
        )
        parser.add_argument(
            "--log-level",
            default="warning",
            choices=["debug", "info", "warning", "error"],
            help="uvicorn's and the MCP SDK's log level (default: warnings only).",
        )

    def handle(self, *args, **options) -> None:
        host, port = options["host"], options["port"]
        level = options["log_level"]
        # The SDK's own loggers (session starts and stops, tool failures) at this level
        # too: warnings only by default, so `make run`'s console stays quiet.
        logging.getLogger("mcp").setLevel(level.upper())
        app = mcp_http_app(issuer_url=options["issuer_url"], host=host, log_level=level.upper())
        if options["verbosity"] > 1:
            self.stdout.write(f"Iris MCP server on http://{host}:{port}{MCP_PATH}")
        uvicorn.Server(uvicorn_config(app, host=host, port=port, log_level=level)).run()
