"""Browser tests: Debian's Chromium driven by Playwright against `live_server`.

Run as their own pytest invocation (`make test` does it) with
DJANGO_ALLOW_ASYNC_UNSAFE=true, since Playwright's sync API runs an event loop.
"""

import os
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("IRIS_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM,
        "args": [
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
        ],
    }


@pytest.fixture
def screenshot(page, request):
    """Save a full-page screenshot as a test artifact."""
    ARTIFACTS.mkdir(exist_ok=True)

    def take(name: str) -> Path:
        path = ARTIFACTS / f"{request.node.name}-{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return take
