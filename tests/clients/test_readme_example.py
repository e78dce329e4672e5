"""The README's "first remember and recall" runs as written against a live server with the
demo data (`seed_demo --json`'s assistant token and Ada's id), and prints what it stored."""

import contextlib
import io
import json
import re
from pathlib import Path

import pytest
from django.core.management import call_command

README = Path(__file__).resolve().parents[2] / "README.md"
SECTION = "### First remember and recall, in Python"


def readme_example() -> str:
    text = README.read_text(encoding="utf-8")
    assert SECTION in text
    section = text.split(SECTION, 1)[1].split("\n#", 1)[0]
    assert "pip install ./clients/python" in section
    [code] = re.findall(r"```python\n(.*?)```", section, re.DOTALL)
    return code


@pytest.mark.django_db(transaction=True)
def test_the_readme_example_remembers_then_recalls_for_a_demo_member(live_server):
    out = io.StringIO()
    call_command("seed_demo", "--json", stdout=out)
    demo = json.loads(out.getvalue())
    token = next(c["token"] for c in demo["service_clients"] if c["consumer"] == "assistant")
    ada = next(m["id"] for m in demo["members"] if m["email"] == "ada@iris.example")
    code = readme_example()
    assert "http://127.0.0.1:8000" in code

    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(  # noqa: S102 (the README's own code, as a reader would run it)
            code.replace("http://127.0.0.1:8000", live_server.url),
            {"TOKEN": token, "MEMBER": ada},
        )

    [line] = printed.getvalue().splitlines()
    assert "I walk the dog at six" in line
