"""Databases served from one checkout, each sealing its own checkpoints (issue 46).

Real processes: `manage.py` against SQLite files of their own (`DATABASE_URL`), with the
default sink (`AUDIT_CHECKPOINT_PATH` unset: `<AUDIT_CHECKPOINT_DIR>/<deployment id>/`),
as a staging database beside production, or a restored copy beside its original, would
be served from one checkout."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

ROOT = Path(settings.BASE_DIR)
APPEND = "from tests.hierarchy.factories import append_events; append_events({count})"


class Site:
    """One database of the checkout: `manage.py` run against it."""

    def __init__(self, folder: Path, database: Path) -> None:
        self.database = database
        self.env = {
            **os.environ,
            "DATABASE_URL": f"sqlite:///{database}",
            "AUDIT_CHECKPOINT_DIR": str(folder / "audit"),
            "AUDIT_SIGNING_KEY_FILE": str(folder / "signing-key.pem"),
            "AUDIT_SIGNING_KEY_GENERATE": "true",
            "PYTHONPATH": str(ROOT),
        }
        for name in ("AUDIT_CHECKPOINT_PATH", "AUDIT_SIGNING_KEY", "AUDIT_VERIFY_KEYS"):
            self.env.pop(name, None)

    def command(self, *args: str) -> list[str]:
        return [sys.executable, "manage.py", *args]

    def run(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run(  # noqa: S603 - our own manage.py
            self.command(*args),
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )

    def ok(self, *args: str) -> str:
        done = self.run(*args)
        assert done.returncode == 0, done.stderr
        return done.stdout

    def append(self, count: int) -> None:
        self.ok("shell", "-c", APPEND.format(count=count))

    def deployment(self) -> tuple[str, Path]:
        """The deployment id and the sink `manage.py audit_deployment` prints."""
        _, deployment, _, sink = self.ok("audit_deployment").replace(",", "").split()
        return deployment, Path(sink)

    def copy(self, name: str) -> "Site":
        """A restored copy of this database, served from the same checkout."""
        copied = self.database.with_name(name)
        shutil.copyfile(self.database, copied)
        return Site(self.database.parent, copied)


@pytest.fixture(scope="module")
def migrated(tmp_path_factory) -> tuple[Path, Path]:
    """Two databases, each migrated on its own (so each made its own deployment id)."""
    folder = tmp_path_factory.mktemp("templates")
    sites = [Site(folder, folder / f"{name}.sqlite3") for name in ("production", "staging")]
    running = [
        subprocess.Popen(  # noqa: S603 - our own manage.py
            site.command("migrate", "-v0"),
            cwd=ROOT,
            env=site.env,
            stderr=subprocess.PIPE,
            text=True,
        )
        for site in sites
    ]
    for process in running:
        _, err = process.communicate(timeout=600)
        assert process.returncode == 0, err
    return sites[0].database, sites[1].database


def _sites(tmp_path, migrated, *names) -> list[Site]:
    sites = []
    for template, name in zip(migrated, names, strict=False):
        shutil.copyfile(template, tmp_path / f"{name}.sqlite3")
        sites.append(Site(tmp_path, tmp_path / f"{name}.sqlite3"))
    return sites


def _sink(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_two_databases_from_one_checkout_each_seal_and_both_verify(tmp_path, migrated):
    # given: production and staging, served from one checkout, one signing key
    production, staging = _sites(tmp_path, migrated, "production", "staging")
    (prod_id, prod_sink), (staging_id, staging_sink) = production.deployment(), staging.deployment()
    assert prod_id != staging_id
    assert (prod_sink.parent.name, staging_sink.parent.name) == (prod_id, staging_id)
    # when: each seals in turn, twice (the old shared file broke at the second)
    for site, events in ((production, 3), (staging, 2), (production, 1), (staging, 4)):
        site.append(events)
        assert "sealed checkpoint" in site.ok("audit_checkpoint")
    # then: each sink holds its own database's checkpoints 1 and 2, naming it
    for sink, deployment in ((prod_sink, prod_id), (staging_sink, staging_id)):
        records = _sink(sink)
        assert [(r["number"], r["deployment"]) for r in records] == [
            (1, deployment),
            (2, deployment),
        ]
    assert "4 events in 1 chains, against signed checkpoint 2" in production.ok("audit_verify")
    assert "6 events in 1 chains, against signed checkpoint 2" in staging.ok("audit_verify")
    # and one database pointed at the other's sink is refused, saying whose it is
    staging.env["AUDIT_CHECKPOINT_PATH"] = str(prod_sink)
    for args in (("audit_verify",), ("audit_checkpoint",)):
        refused = staging.run(*args)
        assert refused.returncode == 1
        assert f"holds checkpoint 1 of deployment {prod_id}" in refused.stderr
        assert f"this database is deployment {staging_id}" in refused.stderr
    assert len(_sink(prod_sink)) == 2


def test_a_restored_copy_beside_its_original_takes_its_own_id_and_both_verify(tmp_path, migrated):
    # given: production sealed, then restored as a copy served beside it
    (production,) = _sites(tmp_path, migrated, "production")
    production.append(2)
    production.ok("audit_checkpoint")
    copy = production.copy("restored.sqlite3")
    deployment, sink = production.deployment()
    assert copy.deployment() == (deployment, sink)  # the copy carries the same id
    production.append(1)
    production.ok("audit_checkpoint")
    # then: the copy may not seal into its original's sink, nor verify against it
    refused = copy.run("audit_checkpoint")
    assert refused.returncode == 1
    assert "holds checkpoint 2, the database does not" in refused.stderr
    assert "manage.py audit_deployment --new" in refused.stderr
    assert "checkpoint 2 is in the sink but not in the database" in copy.run("audit_verify").stderr
    # when: the copy takes a deployment id of its own
    renewed = copy.ok("audit_deployment", "--new")
    copy_id, copy_sink = copy.deployment()
    assert f"deployment {deployment} -> {copy_id}" in renewed
    assert "verified against checkpoint 1 (the sink held 2), sealed its checkpoint 2" in renewed
    # then: its sink carries on from checkpoint 1, the last it inherited, and both verify
    assert [(r["number"], r["deployment"]) for r in _sink(copy_sink)] == [(2, copy_id)]
    assert [r["deployment"] for r in _sink(sink)] == [deployment, deployment]
    copy.append(2)
    copy.ok("audit_checkpoint")
    production.append(1)
    production.ok("audit_checkpoint")
    assert "against signed checkpoint 3 (deployment " + copy_id in copy.ok("audit_verify")
    assert "against signed checkpoint 3 (deployment " + deployment in production.ok("audit_verify")
