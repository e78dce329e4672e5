"""`make run` as a person uses it, in a real process tree (web server, task worker,
scheduler) on a scratch SQLite database:

- the demo logins and the URL are the last thing it prints on start;
- a data-rights export asked for with a bearer token mails its code to the console, the
  code verifies the request, the worker builds the export and it downloads;
- after a scripted session full of member content (a memory, a search on the member
  page, an operator lookup with its justification), no piece of that content is in what
  the servers printed: the access log names routes, never paths or query strings;
- the command the banner prints for the API tokens works as printed, and after Ctrl-C
  and `make run` again every token it printed the first time still works.
"""

import http.cookiejar
import json
import os
import re
import shlex
import signal
import socket
import subprocess
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.conftest import http_request

# `make run`'s own database is SQLite whatever the suite runs on: the SQLite run covers it.
pytestmark = pytest.mark.skipif(
    os.environ.get("DATABASE_URL", "").startswith("postgres"),
    reason="make run uses its own SQLite database; covered by the SQLite run",
)

ROOT = Path(__file__).resolve().parents[2]
# Content the session uses; none of it may reach the log.
MEMORY_TEXT = "I keep my spare insulin pens in the blue cool bag"
SEARCH_TERM = "insulin"
SUBJECT = "cool bag"
JUSTIFICATION = "Ticket 4471: member reports a duplicated reminder"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Console:
    """What `make run` printed so far (stdout and stderr, as a terminal shows them)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def text(self) -> str:
        return self.path.read_text(errors="replace") if self.path.exists() else ""

    def wait_for(self, pattern: str, timeout: float = 180) -> re.Match:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = re.search(pattern, self.text())
            if found:
                return found
            time.sleep(0.25)
        raise AssertionError(f"`make run` never printed {pattern!r}:\n{self.text()[-3000:]}")


@dataclass
class MakeRun:
    """`make run` on one scratch database, started (and stopped, with Ctrl-C's signal) as
    often as a test asks; `demo` is what the banner's token command printed last."""

    here: Path
    env: dict
    port: int = field(default_factory=_free_port)
    mcp_port: int = field(default_factory=_free_port)
    starts: int = 0
    process: subprocess.Popen | None = None
    console: Console | None = None
    demo: dict | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.starts += 1
        log = self.here / f"console-{self.starts}.txt"
        with log.open("wb") as out:
            ports = (f"PORT={self.port}", f"MCP_PORT={self.mcp_port}")
            self.process = subprocess.Popen(  # noqa: S603 - our own Makefile
                ["make", "--no-print-directory", "run", *ports],  # noqa: S607
                cwd=ROOT,
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.console = Console(log)
        self.console.wait_for(r"Iris is running on http://127\.0\.0\.1:\d+/")
        # The command the banner says to run for the tokens, exactly as printed.
        command = self.console.wait_for(r"Run `([^`]+)` for ids and API tokens").group(1)
        printed = subprocess.run(  # noqa: S603 - the banner's own command
            shlex.split(command), cwd=ROOT, env=self.env, capture_output=True, text=True
        )
        assert printed.returncode == 0, (command, printed.stderr[-2000:])
        self.demo = json.loads(printed.stdout)

    def stop(self) -> None:
        process, self.process = self.process, None
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


@pytest.fixture(scope="module")
def make_run_process(tmp_path_factory):
    here = tmp_path_factory.mktemp("make-run")
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "PYTEST"))},
        "DATABASE_URL": f"sqlite:///{here / 'iris.sqlite3'}",
        "IRIS_DSAR_EXPORT_DIR": str(here / "exports"),
        "DEBUG": "true",
        "PYTHONUNBUFFERED": "1",
    }
    env.pop("EMAIL_URL", None)
    run = MakeRun(here, env)
    try:
        run.start()
        yield run
    finally:
        if run.process is not None:
            run.stop()


@pytest.fixture(scope="module")
def make_run(make_run_process):
    return make_run_process.url, make_run_process.console, make_run_process.demo


def test_the_logins_and_the_url_are_the_last_thing_printed_on_start(make_run):
    _, console, _ = make_run
    start = console.text()
    banner = start.index("development server at http://127.0.0.1:")
    logins = start.index("Demo data ready. Sign in with:")
    running = start.index("Iris is running on")
    assert banner < logins < running
    # Nothing from the worker or the scheduler after the logins (a heartbeat every few
    # seconds used to scroll them away): only the closing lines and the access log.
    time.sleep(6)
    after = console.text()[running:].splitlines()[2:]
    assert [line for line in after if not line.startswith(("GET ", "POST "))] == [], after


def _member(demo) -> dict:
    # Not Ada: the demo already has her export under way.
    return next(m for m in demo["members"] if m["email"] == "ben@iris.example")


def test_a_bearer_token_export_mails_its_code_to_the_console_and_downloads(make_run):
    url, console, demo = make_run
    token = _member(demo)["token"]
    submitted = http_request(
        f"{url}/api/v1/me/data-rights/",
        method="POST",
        token=token,
        body={"kind": "export", "payload": {"scopes": ["profile"], "format": "json"}},
    )
    assert submitted.status == 201, submitted.body
    assert submitted.body["verification"]["delivery"] == "sent"

    code = console.wait_for(r"Your confirmation code is (\d{6})").group(1)
    verified = http_request(
        f"{url}{submitted.body['verification']['verify_url']}",
        method="POST",
        token=token,
        body={"code": code},
    )
    assert verified.status == 200 and verified.body["status"] in {"verified", "in-progress"}

    receipt, deadline = verified.body, time.monotonic() + 120
    while receipt["status"] != "completed" and time.monotonic() < deadline:
        time.sleep(1)
        receipt = http_request(
            f"{url}/api/v1/me/data-rights/{submitted.body['id']}/", token=token
        ).body
    assert receipt["status"] == "completed", receipt
    request = urllib.request.Request(f"{url}{receipt['download_url']}")  # noqa: S310
    request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310
        assert response.status == 200 and len(response.read()) > 100


def _signed_in(url: str, email: str, password: str) -> urllib.request.OpenerDirector:
    jar = http.cookiejar.CookieJar()
    browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    with browser.open(f"{url}/accounts/login/", timeout=30) as page:
        csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.read().decode())
    form = urllib.parse.urlencode(
        {"csrfmiddlewaretoken": csrf.group(1), "username": email, "password": password}
    ).encode()
    login = urllib.request.Request(f"{url}/accounts/login/", data=form)  # noqa: S310
    login.add_header("Referer", f"{url}/accounts/login/")
    with browser.open(login, timeout=30) as landed:
        assert "/accounts/login/" not in landed.url, "the demo member could not sign in"
    return browser


def test_the_servers_log_carries_no_content(make_run):
    url, console, demo = make_run
    member, admin = _member(demo), next(o for o in demo["operators"] if o["role"] == "admin")
    remembered = http_request(
        f"{url}/api/v1/me/memories/",
        method="POST",
        token=member["token"],
        body={
            "scope": {"kind": "profile"},
            "category": "preference",
            "subject": SUBJECT,
            "body": MEMORY_TEXT,
        },
    )
    assert remembered.status == 201, remembered.body
    browser = _signed_in(url, member["email"], member["password"])
    query = urllib.parse.urlencode({"q": SEARCH_TERM})
    with browser.open(f"{url}/profile/memory/?{query}", timeout=30) as page:
        assert MEMORY_TEXT in page.read().decode()
    looked_up = http_request(
        f"{url}/api/v1/operator/memory-hierarchy/ltm/{urllib.parse.quote(SUBJECT)}/",
        method="POST",
        token=admin["token"],
        body={"justification": JUSTIFICATION},
    )
    assert looked_up.status == 200, looked_up.body

    time.sleep(1)  # let the servers flush what they log
    printed = console.text()
    for content in (MEMORY_TEXT, SEARCH_TERM, SUBJECT, JUSTIFICATION, "cool%20bag", "q="):
        assert content not in printed, content
    assert re.search(r"^POST \S*memor\S* 201 ", printed, re.MULTILINE), printed[-2000:]


def test_every_token_printed_by_the_first_run_still_works_after_a_restart(make_run_process):
    # Runs last: it stops the module's `make run` and starts it again on the same database.
    run = make_run_process
    first = run.demo
    run.stop()
    run.start()
    assert run.demo == first
    for member in first["members"]:
        answer = http_request(f"{run.url}/api/v1/me/memories/", token=member["token"])
        assert answer.status == 200, (member["email"], answer.body)
