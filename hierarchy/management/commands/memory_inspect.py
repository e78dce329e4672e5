"""`manage.py memory_inspect`: the operators' memory-hierarchy CLI (seed 004).

    counts                                   tier counts
    replay --scope ID [--since] [--limit]    the memory.stm.* timeline of a scope (R1/RC1)
    stm --scope ID --justification TEXT      live short-term rows of a scope (no content)
    ltm --entity ID --justification TEXT     long-term entries about an entity id (any
                                             state), an entry id or actor handle
                                             (metadata); a subject: counts only
    consolidate --stm ID [--from-file PATH] --justification TEXT [--apply]
                                             STM → an operator-copilot entry in your own
                                             copilot scope (the only origin an operator
                                             may assert); the file may add a subject
    demote --entry ID --member ID --scope-id S --justification TEXT [--apply]

Every action takes `--operator EMAIL`: the operator account (with a role) running it; it
is refused otherwise, every audit event it writes names that operator as its actor, and a
tenant-bound operator sees and touches its own tenant's members only.
`--json` prints machine-readable output, otherwise human tables. Reads of member data
need `--justification`; writes are dry runs unless `--apply`. Every invocation is
audited (`hierarchy.cli.invoked`), ids only.
"""

import dataclasses
import json
import uuid
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from hierarchy.access import access_record_append, justification_clean, operator_read_audit
from hierarchy.consolidation import (
    ConsolidationInput,
    stm_consolidate,
    stm_consolidation_preview,
)
from hierarchy.enums import StmScopeKind
from hierarchy.management.commands._when import parse_when
from hierarchy.operator import (
    LTM_DEFAULT_LIMIT,
    REPLAY_DEFAULT_LIMIT,
    hierarchy_counts,
    ltm_entity_read,
    stm_reconstruct,
    stm_replay,
)
from hierarchy.operator_apis import MemberDataOperator, admin_ltm_lookup, admin_stm_row
from hierarchy.stm import scope_digest, stm_admin_read, stm_demote
from hierarchy.transitions import Tier, transition_check
from iris_site.audit.actions import AuditAction
from iris_site.audit.events import Actor
from iris_site.audit.listing import category_listed
from iris_site.enums import OperatorRole
from iris_site.errors import DomainError
from iris_site.models import User
from iris_site.selectors import operator_tenant_id
from memory.enums import Lifecycle, Origin, ScopeKind
from memory.models import MemoryEntry
from memory.selectors import memory_entry_get, tenant_operator_reach

CONSOLIDATION_FIELDS = set(ConsolidationInput.__dataclass_fields__)

# The roles that may run each subcommand, as on the API: ids and counts for every role;
# member data (its rows, its entries, writing them) never for support. A subcommand not
# listed here is refused to everyone.
SUBCOMMAND_ROLES: dict[str, frozenset[str]] = {
    "counts": frozenset(OperatorRole.values),
    "replay": frozenset(OperatorRole.values),
    "stm": MemberDataOperator.roles,
    "ltm": MemberDataOperator.roles,
    "consolidate": MemberDataOperator.roles,
    "demote": MemberDataOperator.roles,
}


def _uuid(value: str) -> uuid.UUID:
    try:
        return uuid.UUID(value)
    except ValueError as error:
        raise CommandError(f"not a UUID: {value}") from error


def _operator(email: str | None, subcommand: str) -> User:
    """The operator running the command: an operator account with a role that may run
    `subcommand` (`SUBCOMMAND_ROLES`), else refused."""
    address = (email or "").strip()
    user = User.objects.filter(email__iexact=address).first() if address else None
    profile = getattr(user, "operator_profile", None) if user is not None else None
    if (
        user is None
        or not user.is_operator
        or not user.is_active
        or not getattr(profile, "role", "")
    ):
        raise CommandError(
            f"--operator: {address or '(none)'} is not an operator account with a role"
        )
    if profile.role not in SUBCOMMAND_ROLES.get(subcommand, frozenset()):
        raise CommandError(
            f"--operator: the {OperatorRole(profile.role).label} role may not run {subcommand}"
        )
    return user


def _table(rows: list[dict], columns: list[str]) -> str:
    if not rows:
        return "(none)"
    cells = [
        [str(row.get(c, "")) if row.get(c) is not None else "—" for c in columns] for row in rows
    ]
    widths = [max(len(c), *(len(r[i]) for r in cells)) for i, c in enumerate(columns)]
    line = "  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True))
    rule = "  ".join("-" * w for w in widths)
    body = ["  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)) for r in cells]
    return "\n".join([line, rule, *body])


class Command(BaseCommand):
    help = "Inspect the memory hierarchy: counts, replay, stm, ltm, consolidate, demote."

    def add_arguments(self, parser) -> None:
        sub = parser.add_subparsers(dest="subcommand", required=True)

        def add(name: str, help_text: str):
            command = sub.add_parser(name, help=help_text)
            command.add_argument("--json", action="store_true", help="machine-readable output")
            command.add_argument(
                "--operator",
                required=True,
                metavar="EMAIL",
                help="your operator account (with a role): the actor of every audit event",
            )
            return command

        add("counts", "STM rows by scope kind, LTM entries by lifecycle, 24 h episodic events")

        replay = add("replay", "the memory.stm.* timeline of one scope (ids and counts only)")
        replay.add_argument("--scope", required=True, help="the scope id")
        replay.add_argument("--since", help="ISO 8601 time with a zone")
        replay.add_argument("--limit", type=int, default=REPLAY_DEFAULT_LIMIT)
        replay.add_argument("--member", help="narrow to one member id")
        replay.add_argument(
            "--reconstruct", action="store_true", help="RC1: also derive the rows' states"
        )
        replay.add_argument(
            "--restore",
            action="store_true",
            help="write the reconstruction back (always refused: replay never mutates)",
        )

        stm = add("stm", "live short-term rows of a scope (metadata only)")
        stm.add_argument("--scope", required=True, help="the scope id")
        stm.add_argument("--justification", required=True, help="why you read member data")
        stm.add_argument("--member", help="narrow to one member id")

        ltm = add(
            "ltm", "long-term entries about an entity, every lifecycle state (subject: counts)"
        )
        ltm.add_argument(
            "--entity",
            required=True,
            help="entity id, entry id, actor handle, or subject (counts only)",
        )
        ltm.add_argument("--justification", required=True, help="why you read member data")
        ltm.add_argument("--state", choices=Lifecycle.values)
        ltm.add_argument("--member", help="narrow to one member id")
        ltm.add_argument("--limit", type=int, default=LTM_DEFAULT_LIMIT)
        ltm.add_argument("--history", action="store_true", help="RC2: revision metadata")

        consolidate = add("consolidate", "STM → LTM (dry run unless --apply)")
        consolidate.add_argument("--stm", required=True, help="the short-term row id")
        consolidate.add_argument(
            "--from-file",
            help="JSON: subject, confidence (origin and scope: your own copilot scope)",
        )
        consolidate.add_argument("--justification", required=True)
        consolidate.add_argument("--apply", action="store_true", help="really consolidate")

        demote = add("demote", "RC3: seed an admin workbench row from an entry (dry run)")
        demote.add_argument("--entry", required=True, help="the long-term entry id")
        demote.add_argument("--member", required=True, help="the entry's member id")
        demote.add_argument("--scope-id", required=True, help="the workbench scope id")
        demote.add_argument(
            "--scope-kind", default=StmScopeKind.ADMIN_SESSION, choices=StmScopeKind.values
        )
        demote.add_argument("--ttl", type=int, help="seconds (default: the kind's TTL)")
        demote.add_argument("--justification", required=True)
        demote.add_argument("--apply", action="store_true", help="really write the row")

    def handle(self, *args, **options) -> None:
        name = options["subcommand"]
        operator = _operator(options["operator"], name)
        self.actor = Actor.of(operator)
        self.tenant_id = operator_tenant_id(operator)
        try:
            if "justification" in options:
                justification_clean(options["justification"])
            output, human, audit = getattr(self, f"_{name}")(options)
        except DomainError as error:
            fields = "".join(f"\n  {k}: {' '.join(v)}" for k, v in sorted(error.fields.items()))
            raise CommandError(f"{error.code}: {error.message}{fields}") from error
        operator_read_audit(
            action=AuditAction.HIERARCHY_CLI_INVOKED,
            actor=self.actor,
            payload={
                "subcommand": name,
                "operator_id": str(operator.pk),
                "json": bool(options["json"]),
                **audit,
            },
        )
        if options["json"]:
            self.stdout.write(json.dumps(output, indent=2, sort_keys=True, default=str))
        else:
            self.stdout.write(human)

    # --- subcommands: each returns (json output, human text, audit payload) ----------------

    def _counts(self, options):
        counts = hierarchy_counts(tenant_id=self.tenant_id).as_dict()
        rows = []
        for tier, key in (("stm", "stm"), ("ltm", "ltm")):
            part = counts[key]
            if part is None:
                rows.append({"tier": tier, "group": "—", "count": None})
                continue
            rows += [{"tier": tier, "group": g, "count": n} for g, n in part.items()]
        rows.append({"tier": "episodic", "group": "last 24 h", "count": counts["episodic_24h"]})
        return counts, _table(rows, ["tier", "group", "count"]), {}

    def _replay(self, options):
        if options["restore"]:
            transition_check(Tier.EPISODIC, Tier.STM, "restore")  # always refused
        events = stm_replay(
            tenant_id=self.tenant_id,
            scope_id=options["scope"],
            since=parse_when(options["since"], "--since") if options["since"] else None,
            limit=options["limit"],
            member_id=_uuid(options["member"]) if options["member"] else None,
        )
        timeline = [
            {
                "sequence": e.sequence,
                "occurred_at": e.occurred_at.isoformat(),
                "action": e.action,
                "stm_id": e.payload.get("stm_id"),
                "member_id": str(e.target_member_id) if e.target_member_id else None,
                "detail": e.payload.get("action_detail") or e.payload.get("trigger"),
            }
            for e in events
        ]
        output = {"scope_id_digest": scope_digest(options["scope"]), "events": timeline}
        human = _table(
            timeline, ["sequence", "occurred_at", "action", "stm_id", "member_id", "detail"]
        )
        if options["reconstruct"]:
            # A special category shows as the marker, as in every audit listing.
            output["reconstructed"] = [
                {**row, "category": category_listed(row["category"])}
                for row in stm_reconstruct(events)
            ]
            human += "\n\nReconstructed (derived, never stored):\n" + _table(
                output["reconstructed"], ["stm_id", "scope_kind", "category", "state"]
            )
        return output, human, {"event_count": len(events), "reconstruct": options["reconstruct"]}

    def _stm(self, options):
        rows = stm_admin_read(
            tenant_id=self.tenant_id,
            scope_id=options["scope"],
            actor=self.actor,
            justification=options["justification"],
            member_id=_uuid(options["member"]) if options["member"] else None,
        )
        output = [
            {k: (str(v) if isinstance(v, uuid.UUID) else v) for k, v in admin_stm_row(r).items()}
            for r in rows
        ]
        human = _table(
            output,
            ["id", "member_id", "scope_kind", "category", "sensitive", "ttl_expires"],
        )
        return output, human, {"row_count": len(rows)}

    def _ltm(self, options):
        lookup = ltm_entity_read(
            tenant_id=self.tenant_id,
            entity=options["entity"],
            actor=self.actor,
            justification=options["justification"],
            state=options["state"],
            member_id=_uuid(options["member"]) if options["member"] else None,
            limit=options["limit"],
            with_history=options["history"],
        )
        output = admin_ltm_lookup(lookup, now=timezone.now(), history=options["history"])
        counts = [{"lifecycle": state, "count": n} for state, n in output["counts"].items()]
        human = f"lookup by {lookup.kind}\n"
        if lookup.entity is not None:
            human += f"entity {lookup.entity.pk}: {lookup.entity.kind}, {lookup.entity.state}\n"
        human += _table(counts, ["lifecycle", "count"])
        if lookup.entries is not None:
            human += "\n\n" + _table(
                output["entries"],
                ["id", "member_id", "category", "origin", "lifecycle", "freshness"],
            )
        return output, human, {"entry_count": lookup.total}

    def _consolidation_input(self, path: str | None) -> ConsolidationInput:
        """The file's fields over the one consolidation an operator may make: a copilot
        note (`operator-copilot`) in their own copilot scope (`memory.access.origins`)."""
        own = {"kind": ScopeKind.OPERATOR_COPILOT, "operator_id": str(self.actor.id)}
        data = {}
        if path is not None:
            try:
                data = json.loads(Path(path).read_text(encoding="utf-8"))
            except (OSError, ValueError) as error:
                raise CommandError(f"--from-file: {error}") from error
            if not isinstance(data, dict):
                raise CommandError("--from-file: the file holds one JSON object")
        unknown = sorted(set(data) - CONSOLIDATION_FIELDS)
        if unknown:
            raise CommandError(f"--from-file: unknown fields {unknown}")
        scope = data.get("scope") or own
        copilot = isinstance(scope, dict) and scope.get("kind") == own["kind"]
        if copilot and str(scope.get("operator_id", "")).lower() != own["operator_id"]:
            raise CommandError(
                "--from-file: an operator consolidates into their own copilot scope only "
                "(leave `scope` out)"
            )
        return ConsolidationInput(**{"origin": Origin.OPERATOR_COPILOT, **data, "scope": scope})

    def _consolidate(self, options):
        stm_id = _uuid(options["stm"])
        given = self._consolidation_input(options["from_file"])
        if self.tenant_id is not None:
            # Short-term memory is the member's own, never a tenant's (`stm_rescope`).
            raise CommandError("not_found: no such short-term row")
        preview = stm_consolidation_preview(stm_id=stm_id, given=given, writer=self.actor.type)
        access_record_append(
            action=AuditAction.HIERARCHY_STM_CONSOLIDATE_REQUESTED,
            actor=self.actor,
            justification=options["justification"],
            target_member_id=uuid.UUID(preview.member_id),
            payload={"stm_id": str(stm_id), "dry_run": not options["apply"]},
        )
        if not options["apply"]:
            output = {
                "dry_run": True,
                "would_post": dataclasses.asdict(given),
                **_preview_dict(preview),
            }
            human = (
                f"DRY RUN (add --apply to consolidate)\n"
                f"stm {preview.stm_id} of member {preview.member_id}\n"
                f"  → {preview.target_scope} as {preview.category} ({preview.origin})\n"
                f"  already consolidated to: {preview.already_consolidated_to or '—'}\n"
                f"  would be refused: {preview.refusal or 'no'}"
            )
            return output, human, {"stm_id": str(stm_id), "entry_id": None, "dry_run": True}
        result = stm_consolidate(stm_id=stm_id, actor=self.actor, given=given)
        output = {
            "dry_run": False,
            "stm_id": str(stm_id),
            "entry_id": result.entry_id,
            "created": result.created,
            "promotion_reason": result.promotion_reason,
        }
        human = f"Consolidated stm {stm_id} into entry {result.entry_id}"
        return output, human, {"stm_id": str(stm_id), "entry_id": result.entry_id, "dry_run": False}

    def _demote(self, options):
        member_id = _uuid(options["member"])
        entry_id = _uuid(options["entry"])
        member = User.objects.filter(pk=member_id).first()
        entry = memory_entry_get(member_id=member_id, entry_id=entry_id) if member else None
        if entry is not None and self.tenant_id is not None:
            # Only the tenant's own memory of its members (`tenant_operator_reach`).
            reach = tenant_operator_reach(self.tenant_id)
            entry = MemoryEntry.objects.filter(reach, pk=entry.pk).first()
        if entry is None:
            raise CommandError("not_found: no such entry for that member")
        access_record_append(
            action=AuditAction.HIERARCHY_LTM_DEMOTE_REQUESTED,
            actor=self.actor,
            justification=options["justification"],
            target_member_id=member_id,
            payload={"entry_id": str(entry_id), "dry_run": not options["apply"]},
        )
        target = {"scope_kind": options["scope_kind"], "scope_id": options["scope_id"]}
        if not options["apply"]:
            output = {"dry_run": True, "entry_id": str(entry_id), "member_id": str(member_id)}
            output |= {"category": entry.category, "lifecycle": entry.lifecycle, **target}
            human = (
                "DRY RUN (add --apply to seed the workbench)\n"
                f"entry {entry_id} ({entry.category}, {entry.lifecycle}) → "
                f"{options['scope_kind']} row in scope {options['scope_id']}"
            )
            return output, human, {"entry_id": str(entry_id), "stm_id": None, "dry_run": True}
        row = stm_demote(
            member=member,
            entry_id=entry_id,
            actor=self.actor,
            workbench=True,
            ttl_seconds=options["ttl"],
            **target,
        )
        output = {
            "dry_run": False,
            "entry_id": str(entry_id),
            "stm_id": str(row.pk),
            "ttl_expires": row.ttl_expires.isoformat(),
            **target,
        }
        human = f"Seeded {row.scope_kind} row {row.pk} from entry {entry_id}"
        return output, human, {"entry_id": str(entry_id), "stm_id": str(row.pk), "dry_run": False}


def _preview_dict(preview) -> dict:
    return {
        "stm_id": preview.stm_id,
        "member_id": preview.member_id,
        "target_scope": preview.target_scope,
        "category": preview.category,
        "sensitive": preview.sensitive,
        "origin": preview.origin,
        "already_consolidated_to": preview.already_consolidated_to,
        "refusal": preview.refusal,
    }
