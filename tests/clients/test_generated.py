"""CI fails when the schema and the client disagree: the client's operations and models
regenerated from the schema the project serves now are the committed ones, byte for byte
(`make client` rewrites them)."""

import subprocess
import sys
from pathlib import Path

import iris_client
from iris_client.session import takes_idempotency_key

GENERATE = Path(__file__).resolve().parents[2] / "clients" / "python" / "generate.py"


def test_the_committed_client_is_what_the_current_schema_generates():
    run = subprocess.run(  # noqa: S603
        [sys.executable, str(GENERATE), "--check"], capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stderr


def test_the_installed_client_is_this_checkout():
    assert Path(iris_client.__file__).parent == GENERATE.parent / "iris_client"


def test_a_write_takes_a_key_where_the_schema_documents_one():
    assert takes_idempotency_key("POST", "/api/v1/members/7f3c/memories/")
    assert takes_idempotency_key("POST", "/api/v1/members/7f3c/sessions/s-1/turns/")
    assert takes_idempotency_key("PUT", "/api/v1/members/7f3c/continuation-tokens/")
    assert not takes_idempotency_key("POST", "/api/v1/members/7f3c/recall/")
    assert not takes_idempotency_key("GET", "/api/v1/members/7f3c/memories/")
    assert not takes_idempotency_key("POST", "/api/v1/members/7f3c/memories/extra/")
