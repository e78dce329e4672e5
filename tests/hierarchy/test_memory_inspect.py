"""`manage.py memory_inspect`: every subcommand in both output modes, justification for
member data, dry runs by default, and the audit of each invocation."""

import io
import json

import pytest
from django.core.management import CommandError, call_command

from hierarchy.models import ShortTermMemory
from memory.models import MemoryEntry
from tests.hierarchy.stm_factories import events, member_with, write
from tests.memory.factories import remember

pytestmark = pytest.mark.django_db
WHY = "incident 77: reconstructing what the agent saw"


def run(*args) -> str:
    out = io.StringIO()
    call_command("memory_inspect", *args, stdout=out)
    return out.getvalue()


def run_json(*args):
    return json.loads(run(*args, "--json"))


def test_counts_in_both_modes():
    member = member_with()
    write(member)
    remember(member)
    data = run_json("counts")
    assert data["stm"]["user_session"] == 1 and data["ltm"]["active"] == 1
    human = run("counts")
    assert "tier" in human and "user_session" in human and "episodic" in human
    invocations = events("admin.memory_tier.cli_invocation")
    assert [e.payload["json"] for e in invocations] == [True, False]
    assert invocations[0].payload["subcommand"] == "counts"


def test_replay_in_both_modes_and_reconstruct():
    row = write(member_with(), scope_id="run-3", scope_kind="agent_run")
    data = run_json("replay", "--scope", "run-3", "--reconstruct")
    assert [e["stm_id"] for e in data["events"]] == [str(row.pk)]
    assert data["reconstructed"][0]["state"] == "written"
    human = run("replay", "--scope", "run-3", "--limit", "5")
    assert "memory.stm.write" in human and str(row.pk) in human


def test_replay_never_writes_back():
    write(member_with(), scope_id="run-3")
    with pytest.raises(CommandError, match="illegal-transition"):
        run("replay", "--scope", "run-3", "--restore")
    assert ShortTermMemory.objects.count() == 1


@pytest.mark.parametrize(
    "args",
    [
        ("stm", "--scope", "s-1"),
        ("ltm", "--entity", "coffee"),
        ("consolidate", "--stm", "00000000-0000-0000-0000-000000000000", "--from-file", "x"),
        ("demote", "--entry", "e", "--member", "m", "--scope-id", "b"),
    ],
)
def test_reads_and_writes_of_member_data_require_a_justification(args):
    with pytest.raises(CommandError, match="justification"):
        run(*args)
    with pytest.raises(CommandError, match="justification-required"):
        run(*args, "--justification", "   ")
    assert not events("admin.memory_tier.cli_invocation")


def test_stm_in_both_modes_shows_no_content():
    member = member_with("category:medical")
    write(member, content="prefers morning walks")
    write(member, category="medical", content="takes insulin")
    data = run_json("stm", "--scope", "s-1", "--justification", WHY)
    assert sorted(r["sensitive"] for r in data) == [False, True]
    assert all("content" not in r for r in data)
    human = run("stm", "--scope", "s-1", "--justification", WHY, "--member", str(member.pk))
    assert "medical" in human and "insulin" not in human and "walks" not in human
    assert len(events("memory.govern.admin_stm_read")) == 2


def test_ltm_by_entry_id_in_both_modes():
    member = member_with()
    entry = remember(member, subject="coffee").entry
    data = run_json("ltm", "--entity", str(entry.pk), "--justification", WHY, "--history")
    assert data["lookup"] == "entry-id" and data["counts"]["total"] == 1
    [row] = data["entries"]
    assert row["id"] == str(entry.pk) and row["history"] and "body" not in row
    human = run("ltm", "--entity", str(entry.pk), "--justification", WHY, "--state", "active")
    assert str(entry.pk) in human and "black" not in human and "coffee" not in human
    [event] = events("admin.memory_hierarchy.ltm.history_read")
    assert event.payload["entry_ids"] == [str(entry.pk)]


def test_ltm_by_subject_answers_counts_only_in_both_modes():
    # given
    member = member_with()
    entry = remember(member, subject="coffee").entry
    # when
    data = run_json("ltm", "--entity", "coffee", "--justification", WHY)
    human = run("ltm", "--entity", "Coffee", "--justification", WHY)
    # then
    assert data["lookup"] == "subject" and data["entries"] is None
    assert data["counts"]["active"] == 1 and data["counts"]["total"] == 1
    assert "lookup by subject" in human and "active" in human
    assert str(entry.pk) not in human and str(member.pk) not in human
    assert "preference" not in human
    assert [e.payload["entry_count"] for e in events("admin.memory_hierarchy.ltm.read")] == [1, 1]
    assert all("entry_ids" not in e.payload for e in events("admin.memory_hierarchy.ltm.read"))
    with pytest.raises(CommandError, match="subject-lookup-counts-only"):
        run("ltm", "--entity", "coffee", "--justification", WHY, "--member", str(member.pk))
    with pytest.raises(CommandError, match="subject-lookup-counts-only"):
        run("ltm", "--entity", "coffee", "--justification", WHY, "--history")


def test_consolidate_is_a_dry_run_unless_applied(tmp_path):
    # given
    row = write(member_with())
    spec = tmp_path / "claim.json"
    # the CLI speaks for no one: the member's word is refused before anything is applied
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps({"origin": "user-stated", "subject": "walks"}))
    refused = run_json(
        "consolidate", "--stm", str(row.pk), "--from-file", str(forged), "--justification", WHY
    )
    assert refused["refusal"] == "origin-not-allowed"
    spec.write_text(json.dumps({"origin": "model-inferred", "subject": "walks"}))
    # when
    dry = run_json(
        "consolidate", "--stm", str(row.pk), "--from-file", str(spec), "--justification", WHY
    )
    human = run(
        "consolidate", "--stm", str(row.pk), "--from-file", str(spec), "--justification", WHY
    )
    # then
    assert dry["dry_run"] is True and dry["refusal"] is None
    assert "DRY RUN" in human
    assert not MemoryEntry.objects.exists()
    assert [e.payload["dry_run"] for e in events("admin.memory_tier.cli_invocation")] == [
        True,
        True,
        True,
    ]
    # when applied
    applied = run_json(
        "consolidate",
        "--stm",
        str(row.pk),
        "--from-file",
        str(spec),
        "--justification",
        WHY,
        "--apply",
    )
    # then
    assert applied["dry_run"] is False
    entry = MemoryEntry.objects.get(pk=applied["entry_id"])
    assert entry.origin == "model-inferred" and entry.subject == "walks"
    last = events("admin.memory_tier.cli_invocation")[-1].payload
    assert (last["stm_id"], last["entry_id"], last["dry_run"]) == (
        str(row.pk),
        applied["entry_id"],
        False,
    )
    with pytest.raises(CommandError, match="already-consolidated"):
        run(
            "consolidate",
            "--stm",
            str(row.pk),
            "--from-file",
            str(spec),
            "--justification",
            WHY,
            "--apply",
        )


def test_consolidate_refuses_unknown_fields_and_rewrites(tmp_path):
    row = write(member_with())
    spec = tmp_path / "claim.json"
    spec.write_text(json.dumps({"body": "something else"}))
    with pytest.raises(CommandError, match="unknown fields"):
        run("consolidate", "--stm", str(row.pk), "--from-file", str(spec), "--justification", WHY)
    spec.write_text(json.dumps({"entry_id": str(row.pk)}))
    with pytest.raises(CommandError, match="illegal-transition"):
        run(
            "consolidate",
            "--stm",
            str(row.pk),
            "--from-file",
            str(spec),
            "--justification",
            WHY,
            "--apply",
        )


def test_demote_seeds_a_workbench_row_only_when_applied():
    member = member_with()
    entry = remember(member).entry
    args = (
        "demote",
        "--entry",
        str(entry.pk),
        "--member",
        str(member.pk),
        "--scope-id",
        "bench-1",
        "--justification",
        WHY,
    )
    dry = run_json(*args)
    assert dry["dry_run"] is True and dry["scope_kind"] == "admin_session"
    assert "DRY RUN" in run(*args)
    assert not ShortTermMemory.objects.exists()
    applied = run_json(*args, "--apply")
    row = ShortTermMemory.objects.get(pk=applied["stm_id"])
    assert row.scope_kind == "admin_session" and row.related_entry_ids == [str(entry.pk)]
    assert events("memory.stm.demoted")[0].payload["transition"] == "rc3"
    assert "Seeded admin_session row" in run(*args, "--apply")
