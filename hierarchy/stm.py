"""The short-term tier: writes (T2, T3, T7/RC3, the admin re-scope), reads (R2) and
expiry (D1, D2). Sits above memory: consent and off-the-record come from their apps.

Every read that returns content passes each row through the read gate
(`memory.access.gate.decide`) for the authenticated reader; `stm_item` is the one mapping of a
row to the gate's content item.

Every write locks, checks the transitions table, saves and appends its episodic event in
the same transaction; that event also ends the member's cached context bundles
(`hierarchy.receivers`).
"""

import uuid
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import connection, transaction
from django.db.models import QuerySet
from django.utils import timezone

from consent.enums import BaseConsentType, category_consent_type
from consent.selectors import consent_active, opt_outs_active
from hierarchy import metrics
from hierarchy.access import access_record_append, justification_clean
from hierarchy.enums import StmScopeKind
from hierarchy.models import ShortTermHold, ShortTermMemory
from hierarchy.stm_config import caps_for
from hierarchy.stm_policy import MAX_RELATED_ENTRY_IDS, default_target_scope, normalize_content
from hierarchy.transitions import Tier, Transition, episodic_record_check, transition_check
from iris_site.audit.actions import AuditAction
from iris_site.audit.enums import ActorType, Severity
from iris_site.audit.events import Actor, audit_event_append
from iris_site.audit.refusals import WriteKind, audit_write_refused
from iris_site.crypto import ContentUnreadable, decrypt, keyed_digest
from iris_site.enums import OperatorRole
from iris_site.errors import (
    Conflict,
    DomainError,
    InvalidInput,
    NotFound,
    NotPermitted,
    PolicyRefusal,
)
from iris_site.models import User
from iris_site.services import member_lock
from memory.access.capabilities import Capabilities
from memory.access.gate import (
    AUTO_FORGOTTEN,
    ContentItem,
    ContentKind,
    MemberState,
    Reader,
    ReaderKind,
    ScopeKey,
    Source,
    auto_forgotten,
    decide,
    kind_opted_out,
    standing_reason,
)
from memory.changes import entries_disclosed
from memory.controls import surface_pause_check
from memory.enums import (
    Lifecycle,
    MemoryCategory,
    ScopeKind,
    StorageGateReason,
    is_sensitive_category,
)
from memory.forgetting.fingerprints import fingerprint_refusal, name_refusal
from memory.recall.store import entries_visible
from memory.selectors import (
    ensure_no_pending_clear,
    member_read_state,
    memory_entry_get,
    memory_entry_sources,
    memory_off_the_record,
)

POLICY_ID = "iris.hierarchy.stm.v1"


# --- helpers -------------------------------------------------------------------------------


def scope_digest(scope_id: str) -> str:
    """The chain never holds a caller-chosen scope id, only this keyed digest of it."""
    return keyed_digest(f"stm-scope:{scope_id}")


def content_digest(content: str) -> str:
    return keyed_digest(f"stm-content:{normalize_content(content)}", length=64)


def stm_audit(
    action: str,
    *,
    row: ShortTermMemory,
    actor: Actor,
    transition: Transition,
    severity: str = Severity.INFO,
    occurred_at: datetime | None = None,
    **payload,
) -> None:
    """Record a short-term event: ids, enums and numbers only, never the content."""
    episodic_record_check(action=action, origin_tier=Tier.STM)
    audit_event_append(
        action=action,
        policy_id=POLICY_ID,
        actor=actor,
        severity=severity,
        target_member_id=row.member_id,
        payload={
            "stm_id": str(row.pk),
            "scope_kind": row.scope_kind,
            "scope_id_digest": scope_digest(row.scope_id),
            "category": row.category,
            "sensitive": row.sensitive,
            "transition": transition.code.lower(),
            **payload,
        },
        occurred_at=occurred_at,
    )


def _live(rows: QuerySet[ShortTermMemory], now: datetime) -> QuerySet[ShortTermMemory]:
    return rows.filter(ttl_expires__gt=now, anonymized_at=None)


def _check_scope_kind(scope_kind: str) -> None:
    if scope_kind not in StmScopeKind.values:
        raise InvalidInput(fields={"scope_kind": [f"One of {', '.join(StmScopeKind.values)}."]})


def _check_scope_id(scope_id: str) -> str:
    if not scope_id or len(scope_id) > 128 or any(c.isspace() or c == ":" for c in scope_id):
        raise InvalidInput(
            fields={"scope_id": ["1 to 128 characters, no whitespace and no colon."]}
        )
    return scope_id


def _ttl(scope_kind: str, ttl_seconds: int | None) -> int:
    caps = caps_for(scope_kind)
    if ttl_seconds is None:
        return caps.ttl_seconds
    if not 0 < ttl_seconds <= caps.max_ttl_seconds:
        raise InvalidInput(
            fields={"ttl_seconds": [f"Between 1 and {caps.max_ttl_seconds} for {scope_kind}."]}
        )
    return ttl_seconds


def _check_consent(member_id, category: str, now: datetime) -> None:
    """Working memory is processing of the member's data; a sensitive category also
    needs its per-category consent, exactly as long-term memory does."""
    active = consent_active(member_id=member_id, now=now)
    if not active.allows(BaseConsentType.DATA_PROCESSING):
        raise PolicyRefusal(
            "Short-term memory needs the member's `data_processing` consent.",
            code="data-processing-consent-required",
        )
    if is_sensitive_category(category) and not active.allows(category_consent_type(category)):
        raise PolicyRefusal(
            f"Keeping {category} content needs `{category_consent_type(category)}` consent.",
            code=StorageGateReason.SENSITIVE_CATEGORY_WITHOUT_CONSENT,
        )


def _related_ids(member_id, related_entry_ids) -> list[str]:
    ids = []
    for raw in related_entry_ids or ():
        try:
            ids.append(str(uuid.UUID(str(raw))))
        except ValueError:
            raise InvalidInput(fields={"related_entry_ids": ["Entry ids are UUIDs."]}) from None
    ids = sorted(set(ids))
    if len(ids) > MAX_RELATED_ENTRY_IDS:
        raise InvalidInput(
            fields={"related_entry_ids": [f"At most {MAX_RELATED_ENTRY_IDS} entry ids."]}
        )
    for entry_id in ids:
        # Another member's entry id is as unknown as a made-up one.
        if memory_entry_get(member_id=member_id, entry_id=entry_id) is None:
            raise InvalidInput(fields={"related_entry_ids": [f"Unknown entry {entry_id}."]})
    return ids


def _writer_of(actor: Actor) -> str:
    return actor.role or str(actor.type)


def _consumer_of(actor: Actor) -> str | None:
    """The consumer a service actor writes for (its role); None for people and the system."""
    return (actor.role or None) if actor.type == ActorType.SERVICE else None


def _refusal_audited(exc: DomainError, *, member: User, scope_kind: str, actor: Actor) -> None:
    """A refused short-term write (off the record, pending clear, consent, cap, forgotten
    fact...) leaves `memory.write.refused` once its transaction has rolled back."""
    audit_write_refused(
        exc,
        write=WriteKind.SHORT_TERM,
        actor=actor,
        member_id=member.pk,
        consumer=_consumer_of(actor),
        scope_kind=scope_kind,
    )


# --- writes --------------------------------------------------------------------------------


def _create(
    *,
    member: User,
    scope_kind: str,
    scope_id: str,
    category: str,
    content: str,
    actor: Actor,
    transition: Transition,
    related_entry_ids=(),
    consolidate_on_critic_promote: bool = False,
    ttl_seconds: int | None = None,
    now: datetime,
    audit_action: str,
    **audit_payload,
) -> ShortTermMemory:
    _check_scope_kind(scope_kind)
    _check_scope_id(scope_id)
    if category not in MemoryCategory.values:
        raise InvalidInput(fields={"category": ["Not a memory category."]})
    caps = caps_for(scope_kind)
    if not content or not content.strip() or "\x00" in content:
        raise InvalidInput(fields={"content": ["Give visible text without NUL characters."]})
    if len(content) > caps.max_content_chars:
        raise InvalidInput(
            fields={"content": [f"At most {caps.max_content_chars} characters for {scope_kind}."]}
        )
    ttl = _ttl(scope_kind, ttl_seconds)
    session = scope_id if scope_kind == StmScopeKind.USER_SESSION else ""
    # One writer per member at a time, so the per-scope cap holds under concurrency, and
    # consent is read under the lock the consent cascade takes: a withdrawal and this
    # write never interleave.
    member_lock(member_id=member.pk)
    ensure_no_pending_clear(member_id=member.pk)
    if memory_off_the_record(member_id=member.pk, session_id=session):
        raise PolicyRefusal("Off the record: nothing is remembered right now.", code="paused")
    surface_pause_check(member_id=member.pk, consumer=_consumer_of(actor))
    _check_consent(member.pk, category, now)
    if kind_opted_out(stm_gate_kind(scope_kind), opt_outs_active(member_id=member.pk)):
        # What the read gate would withhold from every reader is not kept at all.
        raise PolicyRefusal(
            f"The member turned off memory of this kind ({stm_gate_kind(scope_kind)}); "
            "see their scope policies.",
            code="scope-suppressed",
        )
    # Working memory is never the member's own statement: a forgotten fact, or a person
    # the member had Iris forget (by any spelling of their names), stays out.
    if refusal := name_refusal(member_id=member.pk, text=content):
        raise PolicyRefusal(
            "The member asked Iris to forget everything about this person; only they can "
            "bring the person back.",
            code=refusal,
        )
    if refusal := fingerprint_refusal(member_id=member.pk, conflict_key="", text=content):
        raise PolicyRefusal(
            "The member asked Iris to forget this; only they can state it again.", code=refusal
        )
    related = _related_ids(member.pk, related_entry_ids)

    live = _live(
        ShortTermMemory.objects.filter(member=member, scope_kind=scope_kind, scope_id=scope_id),
        now,
    ).count()
    if live >= caps.max_rows_per_scope:
        raise PolicyRefusal(
            f"This {scope_kind} scope already holds {live} rows, its cap.",
            code="stm-scope-cap-reached",
        )
    sensitive = is_sensitive_category(category)
    row = ShortTermMemory(
        member=member,
        scope_kind=scope_kind,
        scope_id=scope_id,
        category=category,
        sensitive=sensitive,
        content=content,  # sealed under the member's key on save (`SealedTextField`)
        content_digest=content_digest(content),
        related_entry_ids=related,
        consolidate_on_critic_promote=consolidate_on_critic_promote,
        written_by=_writer_of(actor),
        ttl_seconds=ttl,
        created_at=now,
        ttl_expires=now + timedelta(seconds=ttl),
    )
    row.full_clean()
    row.save(force_insert=True)
    stm_audit(
        audit_action,
        row=row,
        actor=actor,
        transition=transition,
        ttl_seconds=ttl,
        related_count=len(related),
        consolidate_on_critic_promote=consolidate_on_critic_promote,
        occurred_at=now,
        **audit_payload,
    )
    metrics.increment("memory.stm.writes", scope_kind=scope_kind)
    return row


def stm_write(*, member: User, scope_kind: str, actor: Actor, **kwargs) -> ShortTermMemory:
    """T2: a surface, agent or tool writes a row of working memory for a member; a
    refusal is audited (`memory.write.refused`) after the write rolled back."""
    try:
        return _stm_write(member=member, scope_kind=scope_kind, actor=actor, **kwargs)
    except DomainError as exc:
        _refusal_audited(exc, member=member, scope_kind=scope_kind, actor=actor)
        raise


@transaction.atomic
def _stm_write(
    *,
    member: User,
    scope_kind: str,
    scope_id: str,
    category: str,
    content: str,
    actor: Actor,
    related_entry_ids=(),
    consolidate_on_critic_promote: bool = False,
    ttl_seconds: int | None = None,
    origin_tier: str = Tier.SOURCE,
    now: datetime | None = None,
) -> ShortTermMemory:
    transition = transition_check(origin_tier, Tier.STM, "write")
    return _create(
        member=member,
        scope_kind=scope_kind,
        scope_id=scope_id,
        category=category,
        content=content,
        actor=actor,
        transition=transition,
        related_entry_ids=related_entry_ids,
        consolidate_on_critic_promote=consolidate_on_critic_promote,
        ttl_seconds=ttl_seconds,
        now=now or timezone.now(),
        audit_action=AuditAction.HIERARCHY_STM_WRITTEN,
    )


def _lock(row_id) -> ShortTermMemory:
    row = ShortTermMemory.objects.select_for_update().filter(pk=row_id).first()
    if row is None:
        raise NotFound()
    return row


@transaction.atomic
def stm_refresh(
    *,
    row: ShortTermMemory,
    actor: Actor,
    ttl_seconds: int | None = None,
    now: datetime | None = None,
) -> ShortTermMemory:
    """T3: the row stays alive `ttl_seconds` (default: its kind's TTL) from now, never
    past `created_at + max_lifetime_seconds`, and is no longer "about to expire"."""
    transition = transition_check(Tier.STM, Tier.STM, "refresh")
    now = now or timezone.now()
    row = _lock(row.pk)
    if row.anonymized_at is not None or row.ttl_expires <= now:
        raise Conflict("This short-term row has expired.", code="stm-expired")
    ttl = _ttl(row.scope_kind, ttl_seconds)
    ceiling = row.created_at + timedelta(seconds=caps_for(row.scope_kind).max_lifetime_seconds)
    wanted = now + timedelta(seconds=ttl)
    row.ttl_expires = max(row.ttl_expires, min(wanted, ceiling))
    row.refreshed_at = now
    row.warn_emitted_at = None
    row.save(update_fields=["ttl_expires", "refreshed_at", "warn_emitted_at"])
    stm_audit(
        AuditAction.HIERARCHY_STM_REFRESHED,
        row=row,
        actor=actor,
        transition=transition,
        ttl_seconds=ttl,
        capped=wanted > ceiling,
        occurred_at=now,
    )
    metrics.increment("memory.stm.writes", scope_kind=row.scope_kind)
    return row


def stm_demote(*, member: User, scope_kind: str, actor: Actor, **kwargs) -> ShortTermMemory:
    """T7 / RC3 (see `_stm_demote`); a refusal is audited after the write rolled back."""
    try:
        return _stm_demote(member=member, scope_kind=scope_kind, actor=actor, **kwargs)
    except DomainError as exc:
        _refusal_audited(exc, member=member, scope_kind=scope_kind, actor=actor)
        raise


@transaction.atomic
def _stm_demote(
    *,
    member: User,
    entry_id,
    scope_kind: str,
    scope_id: str,
    actor: Actor,
    workbench: bool = False,
    ttl_seconds: int | None = None,
    now: datetime | None = None,
) -> ShortTermMemory:
    """T7 (LTM → STM demote) or, with `workbench`, RC3 (LTM → STM workbench seed): a copy
    of an active entry becomes working memory that references it. The entry is untouched.

    An entry the read gate withholds for its own state (paused, draft, forgotten,
    superseded, suppressed, held, past the member's auto-forget choice) is refused (409
    `entry-not-active`): its text is never copied. Once copied, the row is withheld
    whenever the entry is (`stm_item`)."""
    transition = transition_check(Tier.LTM, Tier.STM, "seed" if workbench else "demote")
    now = now or timezone.now()
    entry = memory_entry_get(member_id=member.pk, entry_id=entry_id)
    if entry is None:
        raise NotFound()
    source = memory_entry_sources(member_id=member.pk, entry_ids=[entry.pk])[str(entry.pk)]
    withheld = standing_reason(source, now)
    if withheld is None and auto_forgotten(
        source.scope_kind, source.asserted_at, member_read_state(member_id=member.pk), now
    ):
        withheld = AUTO_FORGOTTEN  # never used again: the sweep erases it within the hour
    if withheld is not None:
        raise Conflict(
            f"Only an active memory can seed working memory; this one is withheld ({withheld}).",
            code="entry-not-active",
        )
    return _create(
        member=member,
        scope_kind=scope_kind,
        scope_id=scope_id,
        category=entry.category,
        content=entry.body,
        actor=actor,
        transition=transition,
        related_entry_ids=[entry.pk],
        ttl_seconds=ttl_seconds,
        now=now,
        audit_action=AuditAction.HIERARCHY_STM_DEMOTED,
        entry_id=str(entry.pk),
    )


@transaction.atomic
def stm_rescope(
    *,
    row: ShortTermMemory,
    scope_kind: str,
    scope_id: str,
    actor: Actor,
    admin_override: bool = False,
    justification: str = "",
    tenant_id=None,
    now: datetime | None = None,
) -> ShortTermMemory:
    """STM → STM across scopes is illegal (`stm-cross-scope`); the one exception is an
    operator with the admin role overriding it with a justification (the operator API
    `AdminStmRescopeApi`), kept and audited. Nothing else moves a row across scopes: every
    other writer keeps the scope a row was written in. A tenant-bound admin reaches no
    member's working memory (404): it is the member's own, never a tenant's (the rule an
    inspection applies, `memory.selectors.tenant_operator_reach`)."""
    privileged = actor.type == ActorType.OPERATOR and actor.role == OperatorRole.ADMIN
    transition = transition_check(
        Tier.STM, Tier.STM, "move", admin_override=admin_override and privileged
    )
    _check_scope_kind(scope_kind)
    _check_scope_id(scope_id)
    now = now or timezone.now()
    if tenant_id is not None:
        raise NotFound()
    row = _lock(row.pk)
    if row.anonymized_at is not None or row.ttl_expires <= now:
        raise Conflict("This short-term row has expired.", code="stm-expired")
    record = access_record_append(
        action=AuditAction.HIERARCHY_STM_ADMIN_RESCOPED,
        actor=actor,
        justification=justification,
        target_member_id=row.member_id,
        payload={"stm_id": str(row.pk), "transition": transition.code.lower()},
    )
    previous_digest = scope_digest(row.scope_id)
    row.scope_kind = scope_kind
    row.scope_id = scope_id
    row.save(update_fields=["scope_kind", "scope_id"])
    stm_audit(
        AuditAction.HIERARCHY_STM_RESCOPED,
        row=row,
        actor=actor,
        transition=transition,
        severity=Severity.WARNING,
        previous_scope_id_digest=previous_digest,
        access_record_id=str(record.pk),
    )
    return row


# --- reads ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StmView:
    """A row a reader was allowed to see: content opened, and the entry it was
    consolidated into only if the read gate shows that entry to the same reader (an entry
    the member paused since, or one outside what the reader may read, is not named)."""

    row: ShortTermMemory
    content: str
    consolidated_to: str | None = None


@dataclass(frozen=True, slots=True)
class StmRead:
    """What a gated read returns: the visible rows, and how many were withheld, by the
    read gate's reason (counts only: a withheld row is never named)."""

    views: list[StmView]
    withheld: dict[str, int]


# The operators' workbench (`admin_session`: RC3 seeds, debug workflows) is theirs, not
# a surface's: the gate sees it in the operator-copilot kind, which no surface's blueprint
# allows. It names no operator (rows record only the writing tool), and the gate never
# asks a short-term read for reachability, so one placeholder id serves.
_WORKBENCH_SCOPE = {"kind": ScopeKind.OPERATOR_COPILOT, "operator_id": "workbench"}


def _gate_scope(scope_kind: str, scope_id: str) -> dict:
    """The memory scope the read gate sees working memory of `scope_kind` in: a user
    session's rows in that session, the workbench as above, the rest in the profile (the
    scopes each consolidates into)."""
    if scope_kind == StmScopeKind.ADMIN_SESSION:
        return _WORKBENCH_SCOPE
    return default_target_scope(scope_kind, scope_id)


def stm_gate_kind(scope_kind: str) -> str:
    """The memory scope kind of `scope_kind`'s rows: what a client's read and write kinds
    are checked against (a request naming a kind outside them is 403, never answered
    empty; a write outside them is 403 too, as on the memories endpoint)."""
    return _gate_scope(scope_kind, "")["kind"]


def stm_session_id(row) -> str | None:
    """The conversation a row belongs to: a user session's scope id, else none."""
    return row.scope_id if row.scope_kind == StmScopeKind.USER_SESSION else None


Sources = Mapping[tuple[str, str], Source]


def stm_sources(rows) -> Sources:
    """The entries `rows` are derived from (their `related_entry_ids`: the entry a
    demoted row copies, the entries a surface's row points at), by (member id, entry
    id), as the read gate weighs them: one query per member, none if no row names one."""
    wanted: dict[str, set[str]] = defaultdict(set)
    for row in rows:
        wanted[str(row.member_id)].update(str(i) for i in row.related_entry_ids)
    return {
        (member_id, entry_id): source
        for member_id, entry_ids in wanted.items()
        if entry_ids
        for entry_id, source in memory_entry_sources(
            member_id=member_id, entry_ids=entry_ids
        ).items()
    }


def stm_item(row: ShortTermMemory, sources: Sources | None = None) -> ContentItem:
    """A row as the read gate sees it (`_gate_scope`): withheld while an entry it is
    derived from is (`stm_sources`, loaded for this row alone unless given; an entry no
    longer there was purged, and withholds it as forgotten), and while a data-rights soft
    delete holds the row itself (`stm_held`)."""
    if sources is None:
        sources = stm_sources([row])
    member_id = str(row.member_id)
    scope = ScopeKey(**_gate_scope(row.scope_kind, row.scope_id), user_id=member_id)
    return ContentItem(
        kind=ContentKind.STM,
        item_id=str(row.pk),
        member_id=member_id,
        scope=scope,
        category=row.category,
        held=stm_held(row),
        derived_from=tuple(
            sources.get((member_id, str(entry_id)))
            or Source(entry_id=str(entry_id), lifecycle=Lifecycle.TOMBSTONED)
            for entry_id in row.related_entry_ids
        ),
    )


def stm_held(row: ShortTermMemory) -> bool:
    """Whether a soft delete's grace window holds this row (one query unless the row was
    read with `select_related("deletion_hold")`, as `stm_rows_for_scope` reads them)."""
    try:
        row.deletion_hold  # noqa: B018 - the reverse one-to-one, read for its presence
    except ShortTermHold.DoesNotExist:
        return False
    return True


def stm_reader(*, member_id, capabilities: Capabilities, client_id, context: str) -> Reader:
    """The read gate's reader for a service client; a context outside its capabilities
    is refused (403 `context-not-allowed`), never read as general."""
    capabilities.require_context(context)
    return Reader(
        kind=ReaderKind.SERVICE,
        member_id=str(member_id),
        capabilities=capabilities,
        client_id=str(client_id) if client_id else None,
        context=context,
    )


def stm_member_state(
    *, member_id, scope_id: str, scope_kind: str | None = None, now: datetime | None = None
) -> MemberState:
    """The member's state for reading one scope. A read naming no kind may return a
    user session's rows, so that session's off-the-record applies to all of them (the
    withholding side of a name clash between a session and another kind's scope)."""
    session = scope_id if scope_kind in (None, StmScopeKind.USER_SESSION) else ""
    return member_read_state(member_id=member_id, session_id=session, now=now)


def _row_state(row: ShortTermMemory, now: datetime) -> MemberState:
    return stm_member_state(
        member_id=row.member_id, scope_id=row.scope_id, scope_kind=row.scope_kind, now=now
    )


def stm_visible(row: ShortTermMemory, *, reader: Reader, now: datetime | None = None) -> bool:
    """Whether `reader` may see this one row now: a row it may not see is, to that
    reader, not there (refresh and consolidate answer 404 and change nothing)."""
    now = now or timezone.now()
    return decide(stm_item(row), reader, _row_state(row, now), now) is None


def _views(rows, *, reader: Reader, state: MemberState, now: datetime) -> list[StmView]:
    """``rows`` (already shown to ``reader``) as views: opened, naming the entry each
    was consolidated into only where the read gate shows it to ``reader`` (one query)."""
    shown = entries_visible(
        member_id=reader.member_id,
        entry_ids=[row.consolidated_to for row in rows if row.consolidated_to],
        reader=reader,
        state=state,
        now=now,
    )
    return [
        StmView(
            row,
            stm_content(row),
            str(row.consolidated_to) if str(row.consolidated_to) in shown else None,
        )
        for row in rows
    ]


def stm_gate(rows, *, reader: Reader, state: MemberState, now: datetime | None = None) -> StmRead:
    """Every row through the read gate; only visible rows are opened."""
    now = now or timezone.now()
    rows = list(rows)
    sources = stm_sources(rows)
    shown: list[ShortTermMemory] = []
    withheld: Counter[str] = Counter()
    for row in rows:
        reason = decide(stm_item(row, sources), reader, state, now)
        if reason is None:
            shown.append(row)
        else:
            withheld[reason] += 1
    views = _views(shown, reader=reader, state=state, now=now)
    return StmRead(views, dict(sorted(withheld.items())))


def stm_view(
    row: ShortTermMemory, *, reader: Reader, now: datetime | None = None
) -> StmView | None:
    """This one row as `reader` may see it now (as `stm_gate` shows rows), or None where
    the gate withholds it: the member's state read once for both."""
    now = now or timezone.now()
    state = _row_state(row, now)
    if decide(stm_item(row), reader, state, now) is not None:
        return None
    return _views([row], reader=reader, state=state, now=now)[0]


def stm_echo(row: ShortTermMemory, *, reader: Reader, now: datetime | None = None) -> StmView:
    """A caller's own write, echoed whole whatever the gate says of the row now (its
    words, which it sent), as a view for ``reader``: the consolidation named as in
    `stm_gate`."""
    now = now or timezone.now()
    return _views([row], reader=reader, state=_row_state(row, now), now=now)[0]


def stm_rows_for_scope(
    *, member_id, scope_id: str, scope_kind: str | None = None, now: datetime | None = None
) -> QuerySet[ShortTermMemory]:
    """Live rows of one member's scope, before the read gate (callers that return them
    gate them: `stm_read`, `stm_gate`). Non-admin reads always name the member."""
    if member_id is None:
        raise NotPermitted(
            "Short-term reads need the member's scope.", code="member-scope-required"
        )
    rows = ShortTermMemory.objects.filter(member_id=member_id, scope_id=scope_id)
    if scope_kind:
        rows = rows.filter(scope_kind=scope_kind)
    rows = rows.select_related("deletion_hold")  # the gate asks each row (`stm_held`)
    return _live(rows, now or timezone.now()).order_by("created_at", "id")


def stm_row_get(*, member_id, stm_id) -> ShortTermMemory | None:
    if member_id is None:
        raise NotPermitted(
            "Short-term reads need the member's scope.", code="member-scope-required"
        )
    return ShortTermMemory.objects.filter(member_id=member_id, pk=stm_id).first()


_LEGACY_FERNET = "gAAAAA"  # every Fernet token's base64 prefix (version byte 0x80)


def stm_content(row: ShortTermMemory) -> str:
    """The row's words (opened by its sealed field). A value that cannot be opened (its
    member's key destroyed, or it failed authentication) is `Unreadable`: empty text.
    A sensitive row written before per-member sealing still holds a Fernet token under
    the app key until `manage.py keys_encrypt` seals it: opened here meanwhile (rows live
    hours, so this path empties itself)."""
    content = row.content or ""
    if row.sensitive and content.startswith(_LEGACY_FERNET):
        try:
            return decrypt(content)
        except ContentUnreadable:
            return ""
    return content


def stm_read_record(
    *,
    member_id,
    scope_id: str,
    read: StmRead,
    actor: Actor,
    scope_kind: str | None = None,
    now: datetime | None = None,
) -> None:
    """R2's audit event and metric for what a reader was given and withheld, and the
    record of the entries a surface was given through them (`stm_disclosed`)."""
    stm_disclosed(member_id=member_id, read=read, actor=actor, now=now)
    transition = transition_check(Tier.STM, Tier.READER, "read")
    audit_event_append(
        action=AuditAction.HIERARCHY_STM_READ,
        policy_id=POLICY_ID,
        actor=actor,
        target_member_id=member_id,
        payload={
            "scope_id_digest": scope_digest(scope_id),
            "scope_kind": scope_kind,
            "row_count": len(read.views),
            "stm_ids": [str(view.row.pk) for view in read.views],
            "withheld_counts": read.withheld,
            "transition": transition.code.lower(),
        },
        occurred_at=now,
    )
    metrics.increment("memory.stm.reads", row_count_bucket=metrics.count_bucket(len(read.views)))


def stm_disclosed(*, member_id, read: StmRead, actor: Actor, now: datetime | None) -> bool:
    """A surface served rows that copy or point at entries was given those entries: it
    is recorded as their recipient (`memory.changes.entries_disclosed`), so it is told
    when they are forgotten or corrected."""
    if actor.type != ActorType.SERVICE:
        return False
    related = {str(i) for view in read.views for i in view.row.related_entry_ids}
    return entries_disclosed(
        member_id=member_id, consumer=actor.role, entry_ids=related, now=now or timezone.now()
    )


def stm_read(
    *,
    member_id,
    scope_id: str,
    reader: Reader,
    actor: Actor,
    scope_kind: str | None = None,
    state: MemberState | None = None,
    now: datetime | None = None,
    audit: bool = True,
) -> StmRead:
    """R2: one scope's live rows through the read gate for `reader`. `state` is the
    member's (`stm_member_state`) when the caller already has it; `audit=False` is for
    the context bundle, whose own event counts the rows."""
    now = now or timezone.now()
    if state is None:
        state = stm_member_state(
            member_id=member_id, scope_id=scope_id, scope_kind=scope_kind, now=now
        )
    rows = stm_rows_for_scope(
        member_id=member_id, scope_id=scope_id, scope_kind=scope_kind, now=now
    )
    read = stm_gate(rows, reader=reader, state=state, now=now)
    if audit:
        stm_read_record(
            member_id=member_id,
            scope_id=scope_id,
            read=read,
            actor=actor,
            scope_kind=scope_kind,
            now=now,
        )
    return read


def stm_admin_rows(
    *, scope_id: str, member_id=None, tenant_id=None, now: datetime | None = None
) -> QuerySet[ShortTermMemory]:
    """The admin bypass: live rows of a scope across members (metadata only, callers
    never show content). A tenant-bound operator sees none: short-term memory is the
    member's own, never a tenant's (as in `stm_rescope`)."""
    rows = _live(ShortTermMemory.objects.filter(scope_id=scope_id), now or timezone.now())
    if member_id is not None:
        rows = rows.filter(member_id=member_id)
    if tenant_id is not None:
        rows = rows.none()
    return rows.order_by("created_at", "id")


def stm_admin_read(
    *,
    scope_id: str,
    actor: Actor,
    justification: str,
    member_id=None,
    tenant_id=None,
    now: datetime | None = None,
) -> list[ShortTermMemory]:
    """`hierarchy.stm.admin_read`: justified, audited, content never decrypted."""
    justification_clean(justification)
    rows = list(
        stm_admin_rows(scope_id=scope_id, member_id=member_id, tenant_id=tenant_id, now=now)
    )
    member_ids = sorted({str(r.member_id) for r in rows})
    access_record_append(
        action=AuditAction.HIERARCHY_STM_ADMIN_READ,
        actor=actor,
        justification=justification,
        target_member_id=member_id or (member_ids[0] if len(member_ids) == 1 else None),
        payload={
            "scope_id_digest": scope_digest(scope_id),
            "row_count": len(rows),
            "member_ids": member_ids,
            "transition": "r2",
        },
    )
    metrics.increment("memory.stm.reads", row_count_bucket=metrics.count_bucket(len(rows)))
    return rows


# --- expiry and deletion -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ExpiryReport:
    deleted: int = 0
    anonymized: int = 0

    def as_dict(self) -> dict[str, int]:
        return {"deleted": self.deleted, "anonymized": self.anonymized}


def _anonymize(row: ShortTermMemory, *, actor: Actor, transition: Transition, now, **payload):
    row.content = ""
    row.content_digest = ""
    row.anonymized_at = now
    row.save(update_fields=["content", "content_digest", "anonymized_at"])
    stm_audit(
        AuditAction.HIERARCHY_STM_ANONYMIZED, row=row, actor=actor, transition=transition, **payload
    )


def _delete(row: ShortTermMemory, *, actor: Actor, transition: Transition, **payload):
    # The event is written first: it names the row that is about to disappear.
    stm_audit(
        AuditAction.HIERARCHY_STM_DELETED, row=row, actor=actor, transition=transition, **payload
    )
    row.delete()
    metrics.increment("memory.stm.deletes")


def stm_expire_due(*, now: datetime | None = None, batch_size: int = 500) -> ExpiryReport:
    """D1 + D2: expired ordinary rows are hard-deleted, expired sensitive rows are
    anonymized in place (metadata kept). Idempotent; each row in its own transaction."""
    now = now or timezone.now()
    delete = transition_check(Tier.STM, Tier.STM, "expire")
    anonymize = transition_check(Tier.STM, Tier.STM, "anonymize")
    actor = Actor.system("stm-expiry")
    deleted = anonymized = 0
    due = ShortTermMemory.objects.filter(ttl_expires__lte=now, anonymized_at=None)
    for row_id in list(due.order_by("ttl_expires").values_list("pk", flat=True)[:batch_size]):
        with transaction.atomic():
            row = ShortTermMemory.objects.select_for_update().filter(pk=row_id).first()
            if row is None or row.anonymized_at is not None or row.ttl_expires > now:
                continue
            detail = {"reason": "ttl", "warned": row.warn_emitted_at is not None}
            if row.sensitive:
                _anonymize(row, actor=actor, transition=anonymize, now=now, **detail)
                anonymized += 1
            else:
                _delete(row, actor=actor, transition=delete, **detail)
                deleted += 1
    report = ExpiryReport(deleted=deleted, anonymized=anonymized)
    if due.exists() and (deleted + anonymized) == batch_size:
        # More than one batch was due: keep going (still idempotent).
        more = stm_expire_due(now=now, batch_size=batch_size)
        report = ExpiryReport(deleted + more.deleted, anonymized + more.anonymized)
    return report


def _contains_category_rows(member_id, category: str | None) -> QuerySet[ShortTermMemory]:
    rows = ShortTermMemory.objects.filter(member_id=member_id, anonymized_at=None)
    return rows.filter(category=category) if category else rows


def stm_consent_cascade(*, member_id, consent_type: str) -> ExpiryReport:
    """A withdrawn or expired consent ends the matching working memory at once:
    `category:<c>` ends that category's rows, `data_processing` ends them all."""
    if consent_type == BaseConsentType.DATA_PROCESSING:
        category = None
    elif consent_type.startswith("category:"):
        category = consent_type.removeprefix("category:")
    else:
        return ExpiryReport()
    actor = Actor.system("consent-cascade")
    delete = transition_check(Tier.STM, Tier.STM, "expire")
    anonymize = transition_check(Tier.STM, Tier.STM, "anonymize")
    deleted = anonymized = 0
    now = timezone.now()
    with transaction.atomic():
        member_lock(member_id=member_id)  # as `_create` reads consent under it
        for row in _contains_category_rows(member_id, category).select_for_update():
            if row.sensitive:
                _anonymize(row, actor=actor, transition=anonymize, now=now, reason="consent")
                anonymized += 1
            else:
                _delete(row, actor=actor, transition=delete, reason="consent", warned=False)
                deleted += 1
    return ExpiryReport(deleted=deleted, anonymized=anonymized)


@transaction.atomic
def stm_purge_member(*, member_id, reason: str = "data-rights-hard-delete") -> int:
    """Erase every short-term row of a member, anonymized ones included (the DSAR hard
    delete). The chain keeps the count and the ids only."""
    rows = ShortTermMemory.objects.filter(member_id=member_id)
    ids = sorted(str(i) for i in rows.values_list("pk", flat=True))
    rows.delete()
    audit_event_append(
        action=AuditAction.HIERARCHY_STM_PURGED,
        policy_id=POLICY_ID,
        actor=Actor.system(reason),
        severity=Severity.WARNING,
        target_member_id=member_id,
        payload={"purged_count": len(ids), "stm_ids": ids[:1000], "reason": reason},
    )
    return len(ids)


def json_contains_id(field: str, value) -> dict:
    """A filter for "this JSON list holds this id", on PostgreSQL and SQLite."""
    if connection.features.supports_json_field_contains:
        return {f"{field}__contains": [str(value)]}
    # SQLite: ids are quoted fixed-length UUIDs in the stored JSON text, so this is exact.
    return {f"{field}__icontains": f'"{value}"'}
