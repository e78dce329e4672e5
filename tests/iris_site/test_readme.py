"""The README is a user's guide a newcomer can trust: at most ~400 lines, every file or
test it names exists, every `manage.py` command it shows is one, and every link into
`docs/` lands on a file and a heading that are there. (The tables the code holds are
checked where they are printed: `docs/design.md`, by `tests/memory/test_capabilities.py`
and `tests/memory/test_origins.py`.)"""

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import get_commands

ROOT = Path(settings.BASE_DIR)
README = ROOT / "README.md"
MAX_LINES = 400

# A repository path as the README writes one: under one of the repository's own top-level
# folders (so a folder added later is covered too), not `/usr/…` or `../shared/…`.
TOP = "|".join(
    re.escape(folder.name)
    for folder in ROOT.iterdir()
    if folder.is_dir()
    and (folder.name == ".ci" or not folder.name.startswith((".", "var")))
    and not folder.name.endswith(".egg-info")
)
PATH = re.compile(rf"(?<![\w./-])(?:{TOP})/[\w./-]*[\w/]")
COMMAND = re.compile(r"manage\.py (\w+)")
# The jobs table's last column: the command that runs each job by hand.
JOB_ROW = re.compile(r"^\|[^|]+\|[^|]+\| `(\w+)` \|$", re.MULTILINE)
LINK = re.compile(r"\]\(((?:\.\./)?[\w/.-]*\.md|#[\w-]+)(#[\w-]+)?\)")


def _text(path: Path = README) -> str:
    return path.read_text(encoding="utf-8")


def _anchors(markdown: str) -> set[str]:
    """GitHub's heading anchors: lowercased, punctuation dropped, spaces to hyphens."""
    anchors = set()
    for heading in re.findall(r"^#{1,6} (.+)$", markdown, re.MULTILINE):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        anchors.add(slug)
    return anchors


def test_the_readme_is_a_guide_not_a_log():
    lines = _text().splitlines()
    assert len(lines) <= MAX_LINES, f"README.md has {len(lines)} lines; move detail to docs/"


def test_every_path_the_readme_names_exists():
    named = {match.rstrip("/.") for match in PATH.findall(_text())}
    assert named, "the README names no repository path: the pattern is wrong"
    missing = sorted(path for path in named if not (ROOT / path).exists())
    assert not missing, f"README.md names paths that do not exist: {missing}"


def test_every_command_the_readme_shows_exists():
    text = _text()
    shown = set(COMMAND.findall(text)) | set(JOB_ROW.findall(text))
    assert {"audit_verify", "bench_recall", "stm_expire"} <= shown
    missing = sorted(shown - set(get_commands()))
    assert not missing, f"README.md shows commands manage.py does not have: {missing}"


@pytest.mark.parametrize(
    "source",
    [
        "README.md",
        "docs/design.md",
        "docs/recall.md",
        "docs/benchmarks.md",
        "docs/layout.md",
        "docs/request-cost.md",
    ],
)
def test_every_link_into_the_docs_lands(source):
    path = ROOT / source
    for target, anchor in LINK.findall(_text(path)):
        if target.startswith("#"):
            target_path, anchor = path, target
        else:
            target_path = (path.parent / target).resolve()
            assert target_path.exists(), f"{source} links to {target}, which does not exist"
        if anchor:
            assert anchor[1:] in _anchors(_text(target_path)), (
                f"{source} links to {target}{anchor if target != anchor else ''}: no such heading"
            )
