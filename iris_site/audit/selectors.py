"""Reads of the episodic chain."""

from collections import deque
from dataclasses import dataclass
from itertools import groupby

from django.conf import settings
from django.db.models import Q, QuerySet

from iris_site.audit.actions import names_under, stored_names
from iris_site.audit.checkpoint import (
    CheckpointSink,
    checkpoint_sink,
    deployment_current,
    deployment_unrecorded,
    record_of,
    sink_records,
    unrecorded_message,
    verify_keys,
)
from iris_site.audit.events import link_of
from iris_site.audit.policy import ChainBreak, SealedHead, first_break
from iris_site.audit.seal import (
    SealError,
    heads_from_rows,
    merkle_root,
    sequence_check,
    signature_check,
    statement_of,
)
from iris_site.models import AuditCheckpoint, AuditEvent


def action_q(*actions: str) -> Q:
    """Events of these actions, whichever name they were stored under (an old row keeps
    the name it was written with; `iris_site.audit.actions.LEGACY_NAMES`)."""
    return Q(action__in=stored_names(*actions))


def action_prefix_q(prefix: str) -> Q:
    """Events whose stored action starts with `prefix`, and every declared action that
    had or has a name under it, by any of its names: `memory.stm.` still finds the
    short-term events written since as `hierarchy.stm.*`, `hierarchy.` the old
    `admin.memory_hierarchy.*` rows."""
    return Q(action__startswith=prefix) | Q(action__in=names_under(prefix))


def audit_event_list(*, tenant_id=None) -> QuerySet[AuditEvent]:
    """Events an operator may list; a tenant-bound operator sees only their tenant's."""
    events = AuditEvent.objects.all()
    if tenant_id is not None:
        events = events.filter(target_tenant_id=tenant_id)
    return events


def audit_events_for_member(*, member_id) -> QuerySet[AuditEvent]:
    return AuditEvent.objects.filter(target_member_id=member_id)


@dataclass(frozen=True, slots=True)
class ChainReport:
    valid: bool
    checked_count: int
    chain_count: int
    first_break: ChainBreak | None  # the first bad event, chains taken in key order
    broken_chains: int
    checkpoint: int | None  # the signed checkpoint the chains were checked against
    checkpoint_problem: str | None  # the sink or the checkpoint itself does not hold
    deployment: str | None  # the database's deployment id
    sink_checkpoint: int | None  # the sink's last checkpoint (past `checkpoint`: a copy's)


def _sealed_heads(
    sink: CheckpointSink | None, *, copy: bool
) -> tuple[dict[str, SealedHead], int | None, int | None]:
    """The heads of the latest signed checkpoint (`copy`: the latest the database holds, a
    restored copy's sink running ahead of it), after checking that the sink is this
    database's, every statement's signature and link, and that the database's copy of its
    heads makes its root. Also the sink's last checkpoint number.

    A renewed deployment never lowers the bar: its sink carries on from the checkpoint it
    inherited (`Deployment.inherited`, which the database must hold), and that checkpoint
    counts as the sink's first record, its signature (stored on its row) checked with
    `verify_keys()` like every other. So with nothing sealed since the renewal, the
    chains are checked against the inherited checkpoint, never against none."""
    current = deployment_current()
    if current is None:  # emptied since its migration: its first seal makes one
        sink = sink or (checkpoint_sink(None) if settings.AUDIT_CHECKPOINT_PATH else None)
        if AuditCheckpoint.objects.exists() or (sink and next(iter(sink.records()), None)):
            raise SealError("this database has no deployment id but has been sealed before")
        return {}, None, None
    sink = sink or checkpoint_sink(current)
    records, after = sink_records(sink.records(), current, sink.where)
    sunk = records[-1]["number"] if records else None
    if copy:
        held = AuditCheckpoint.objects.order_by("-number").values_list("number", flat=True)
        records = [r for r in records if r["number"] <= (held.first() or 0)]
    keys = verify_keys()
    if after is not None:
        signature_check(after, keys)
    last = sequence_check(records, keys, after=after) or after
    if last is None:
        if AuditCheckpoint.objects.filter(number__gt=current.inherited or 0).exists():
            raise SealError(f"the database holds checkpoints, the sink none ({sink.where})")
        return {}, None, sunk
    number = last["number"]
    row = AuditCheckpoint.objects.filter(number=number).first()
    if row is None:
        raise SealError(f"checkpoint {number} is in the sink but not in the database")
    heads = heads_from_rows(row.heads)
    if statement_of(record_of(row)) != statement_of(last) or merkle_root(heads) != last["root"]:
        raise SealError(f"the database's checkpoint {number} does not match its signed statement")
    return {head.chain: head for head in heads}, number, sunk


def audit_chain_verify(
    *, batch_size: int = 2000, sink: CheckpointSink | None = None, copy: bool = False
) -> ChainReport:
    """Recompute every chain against the latest signed checkpoint.

    Each chain must link from genesis, hash as stored, pass through the head the
    checkpoint sealed, and chain on from it; a chain the checkpoint sealed must still be
    there. Without a checkpoint (or with one that does not hold) the chains are checked
    on their own, which a rewrite that recomputes every hash passes.

    The checkpoint is the sink's latest; for a database given a new deployment id with
    nothing sealed since, the one it inherited (`_sealed_heads`). Every deployment id
    after the database's first must have been given by `audit_deployment --new` (an
    `iris_site.deployment.renewed` event names it and what it inherited): a row added by
    hand is a `checkpoint_problem`, and the chains are still checked against the
    checkpoint.

    `sink`: another than this database's (its original's, for a restored copy); `copy`:
    checkpoints in the sink past the database's latest are not missing (the copy was
    taken before they were sealed), and the chains are checked against its latest.
    """
    current = deployment_current()
    try:
        sealed, number, sunk = _sealed_heads(sink, copy=copy)
        unrecorded = deployment_unrecorded()
        problem = unrecorded_message(unrecorded) if unrecorded is not None else None
    except (SealError, OSError, ValueError) as exc:  # an unreadable sink, a bad line or key
        sealed, number, sunk, problem = {}, None, None, str(exc)
    counted = chains = broken_chains = 0
    first: ChainBreak | None = None

    def note(broken: ChainBreak | None) -> None:
        nonlocal first, broken_chains
        if broken is not None:
            broken_chains += 1
            first = first or broken

    def links(group):
        nonlocal counted
        for event in group:
            counted += 1
            yield link_of(event), event.previous_hash, event.hash

    events = AuditEvent.objects.order_by("chain_key", "chain_sequence").iterator(batch_size)
    for chain, group in groupby(events, key=lambda event: event.chain_key):
        chains += 1
        walk = links(group)
        note(first_break(walk, sealed=sealed.pop(chain, None)))
        deque(walk, maxlen=0)  # count the rest of a chain after its break
    for head in sealed.values():  # sealed chains with no event left at all
        note(ChainBreak(head.event_id, head.chain_sequence, "sealed-head-missing", head.chain))
    return ChainReport(
        valid=problem is None and first is None,
        checked_count=counted,
        chain_count=chains,
        first_break=first,
        broken_chains=broken_chains,
        checkpoint=number,
        checkpoint_problem=problem,
        deployment=str(current.deployment_id) if current else None,
        sink_checkpoint=sunk,
    )
