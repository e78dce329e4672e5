"""Reads of memory. Other apps (recall, inspection, data rights, hierarchy) read here."""

import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.db import connection
from django.db.models import Exists, Prefetch, Q, QuerySet
from django.utils import timezone

from consent.enums import BaseConsentType, ConsentStatus, category_consent_type
from consent.selectors import consent_event_list, consent_gate_state
from iris_site.audit.events import iso
from iris_site.enums import UserKind
from iris_site.errors import Conflict, NotFound
from iris_site.models import TenantMembership, User
from iris_site.rawsql import member_param
from memory.access.capabilities import Capabilities, capabilities_for
from memory.access.disclosures import registered_disclosure_sources
from memory.access.gate import MemberState, Source, Suppression, auto_forget_at
from memory.contracts import (
    SCOPE_IDENTIFIERS,
    SCOPE_KEY_ADAPTER,
    AuditEntry,
    ConsentEntry,
    MemorySuppression,
    MultiActor,
    ProvenanceLink,
)
from memory.contracts import (
    MemoryEntry as MemoryEntryContract,
)
from memory.controls import DEFAULTS as DEFAULT_SETTINGS
from memory.controls import (
    MemorySettings,
    member_memory_settings_get,
    months_to_days,
    settings_of,
)
from memory.enums import Lifecycle, ScopeKind
from memory.filters import MemoryEntryFilter
from memory.models import (
    ConversationTurn,
    MemberMemorySettings,
    MemoryClearRequest,
    MemoryEntry,
    MemoryNotice,
    MemoryRevision,
    OffTheRecordSession,
    RecallRecord,
    ServiceClientCapabilities,
    conflict_token_read,
)
from memory.policy.conflicts import conflict_key
from memory.policy.fingerprints import fact_of

SCOPE_COLUMNS = ("session_id", "scene_id", "room_id", "pose_id", "avatar_id", "notebook_id")


def memory_entry_list(*, member_id, filters: dict | None = None) -> QuerySet[MemoryEntry]:
    """The member's entries, newest first; forgotten ones, entries held for a pending
    (soft) deletion, and everything while a full clear waits out its grace window, are
    left out."""
    if memory_pending_clear(member_id=member_id) is not None:
        return MemoryEntry.objects.none()
    entries = MemoryEntry.objects.filter(member_id=member_id, deletion_hold__isnull=True).exclude(
        lifecycle=Lifecycle.TOMBSTONED
    )
    if filters:
        entries = MemoryEntryFilter(filters, entries).qs
    return entries


# What `entry_contract` reads of an entry's revisions (its audit chain): not their
# content snapshots, which a list of fifty entries would decode for nothing.
REVISION_TRAIL = Prefetch(
    "revisions",
    queryset=MemoryRevision.objects.only(
        "id", "entry_id", "number", "previous_revision_id", "action", "actor", "created_at"
    ),
)


def memory_entries_shown(*, member_id) -> QuerySet[MemoryEntry]:
    """Every entry of this member a door may name by id (any lifecycle); none while a
    full clear waits: hidden, as from the list, on every door that names an entry (its
    page, history, revisions, the API)."""
    pending = MemoryClearRequest.objects.filter(
        member_id=member_id, state=MemoryClearRequest.State.PENDING
    )
    # One statement with the entry's own read (a detail page counts its statements).
    return MemoryEntry.objects.filter(~Exists(pending), member_id=member_id)


def memory_entry_get(*, member_id, entry_id) -> MemoryEntry | None:
    """One entry of this member, or None — another member's entry is simply not found,
    nor is any while a full clear waits (`memory_entries_shown`)."""
    return memory_entries_shown(member_id=member_id).filter(pk=entry_id).first()


def memory_entry_sources(*, member_id, entry_ids: Iterable[str]) -> dict[str, Source]:
    """These entries of this member, by id, as the read gate weighs content derived from
    them (`memory.access.gate.Source`), in one query. An id not found (purged, or another
    member's) is left out: what that means is the caller's to say."""
    rows = MemoryEntry.objects.filter(member_id=member_id, pk__in=list(entry_ids)).values_list(
        "pk",
        "lifecycle",
        "suppression_reason",
        "suppression_ends_at",
        "deletion_hold",
        "scope_kind",
        "updated_at",
    )
    return {
        str(pk): Source(
            entry_id=str(pk),
            lifecycle=lifecycle,
            suppression=Suppression(reason, ends_at) if reason else None,
            held=hold is not None,
            scope_kind=scope_kind,
            asserted_at=updated_at,
        )
        for pk, lifecycle, reason, ends_at, hold, scope_kind, updated_at in rows
    }


def memory_auto_forget_first(*, member_id, entry_ids: Iterable[str], state: MemberState):
    """The first instant at which the member's auto-forget choices stop the use of one
    of these entries (`memory.access.gate.auto_forget_at`), or ``None``: what a cached answer
    that holds them must not outlive. One query, none without a choice."""
    if not state.auto_forget_days or not entry_ids:
        return None
    rows = MemoryEntry.objects.filter(member_id=member_id, pk__in=list(entry_ids)).values_list(
        "scope_kind", "updated_at"
    )
    instants = [auto_forget_at(kind, asserted_at, state) for kind, asserted_at in rows]
    return min((i for i in instants if i is not None), default=None)


def tenant_operator_reach(tenant_id, *, through: str = "") -> Q:
    """What of the members' memory an operator bound to ``tenant_id`` may list, count or
    act on: its own tenant's memory (tenant scope) of its members, the rule an inspection
    applies (`inspection.policy`); a member's consumer memory (profile, sessions, crisis,
    operator notes) is never a tenant's. ``through``: the path to the entry ("entry__")."""
    members = TenantMembership.objects.filter(tenant_id=tenant_id).values("user_id")
    return Q(
        **{
            f"{through}scope_kind": ScopeKind.TENANT,
            f"{through}tenant_id": tenant_id,
            f"{through}member_id__in": members,
        }
    )


def memory_revision_list(*, member_id, entry_id) -> QuerySet[MemoryRevision]:
    return MemoryRevision.objects.filter(member_id=member_id, entry_id=entry_id).order_by("number")


def memory_conflicting_entries(
    *, member_id, tenant_id, category: str, actor_handle: str, subject: str
) -> QuerySet[MemoryEntry]:
    """Live entries about the same thing (`category :: actor_handle :: subject`).

    Without a subject or an actor the key is only the category, and two preferences are
    not a contradiction. Tenant memory never meets consumer memory, not even here. An
    entry older than the member's auto-forget choice for its kind meets nothing either:
    it is never used again (the read gate's `member-auto-forget`), and the sweep erases it
    within the hour.
    """
    if not (subject or actor_handle):
        return MemoryEntry.objects.none()
    rows = MemoryEntry.objects.filter(
        member_id=member_id,
        tenant_id=tenant_id,
        conflict_key=conflict_token_read(
            member_id,
            conflict_key(category=category, actor_handle=actor_handle, subject=subject),
        ),
        lifecycle__in=[Lifecycle.ACTIVE, Lifecycle.PAUSED],
    )
    chosen = member_memory_settings_get(member_id=member_id)
    now = timezone.now()
    for kind in sorted(chosen.auto_forget_months):
        rows = rows.exclude(scope_kind=kind, updated_at__lt=chosen.auto_forget_cutoff(kind, now))
    return rows


def memory_off_the_record(*, member_id, session_id: str = "", sessions: Iterable[str] = ()) -> bool:
    """Is nothing to be remembered right now for this member (in this session, or in any
    of `sessions`: every conversation a write comes from)?"""
    names = {"", session_id, *sessions}
    return OffTheRecordSession.objects.filter(
        member_id=member_id, session_id__in=names, active=True
    ).exists()


def memory_cited_turns(*, member_id, refs: Iterable[str]) -> dict[str, ConversationTurn]:
    """The member's stored turns among `refs` (turn ids), by id. A ref that is not an id,
    or names no turn of this member, is simply absent: the caller decides."""
    ids = set()
    for ref in refs:
        try:
            ids.add(uuid.UUID(ref))
        except (TypeError, ValueError):
            continue
    if not ids:
        return {}
    # A turn held for a pending deletion is absent, as it will be.
    turns = ConversationTurn.objects.filter(
        member_id=member_id, pk__in=ids, deletion_hold__isnull=True
    ).only("id", "session_id", "speaker", "text")
    return {str(turn.pk): turn for turn in turns}


def memory_session_occurrences(*, member_id, category: str, conflict_key: str, body: str) -> int:
    """How often the member's session memory already holds this fact: the same conflict
    key (`conflict_key`, plain: compared as the member's keyed token) when it has a
    subject or a person, else the same fact in the same words (`fact_of`: case, spacing
    and punctuation aside). Superseded rows count:
    a recurring fact supersedes its previous mention.

    Bodies are sealed, so the body comparison opens the member's session entries of the
    category and compares in Python: a sealed column cannot be compared in SQL, and these
    rows are few (session memory, one category)."""
    entries = MemoryEntry.objects.filter(
        member_id=member_id,
        scope_kind=ScopeKind.SESSION,
        category=category,
        lifecycle__in=[Lifecycle.ACTIVE, Lifecycle.SUPERSEDED, Lifecycle.PAUSED],
    )
    if conflict_key.strip(":") != category:
        return entries.filter(conflict_key=conflict_token_read(member_id, conflict_key)).count()
    wanted = fact_of(body)
    return sum(1 for stored in entries.values_list("body", flat=True) if fact_of(stored) == wanted)


def memory_pending_clear(*, member_id) -> MemoryClearRequest | None:
    return MemoryClearRequest.objects.filter(
        member_id=member_id, state=MemoryClearRequest.State.PENDING
    ).first()


CLEAR_PENDING = "clear-pending"


def ensure_no_pending_clear(*, member_id) -> None:
    """Refuse a write of member content while a full clear waits out its grace window.

    Every write path calls this after taking the member lock (`member_lock`), which
    `memory_clear_request` takes too: a write and a clear request never interleave, so
    nothing stored during the window escapes the purge or reappears on a cancel."""
    if memory_pending_clear(member_id=member_id) is not None:
        raise Conflict(
            "A full clear of this member's memory is pending: nothing new is stored until "
            "it is cancelled or the memory is erased.",
            code=CLEAR_PENDING,
        )


SETTINGS_PUT_ASIDE = (
    "Everything is about to be erased, so your settings are put aside: nothing was "
    "changed. Cancel the erase first to change them."
)


def ensure_settings_open(*, member_id) -> None:
    """While a full clear waits, the member's switches (how Iris uses my memory, the
    kinds of memory) are put aside: the page hides them and says so, and every door (the
    pages, `/api/v1/me/memory-settings/`, `/api/v1/me/opt-outs/`) refuses a change with
    409 `clear-pending`, nothing changed. Called under the member lock, which the clear
    request takes too."""
    if memory_pending_clear(member_id=member_id) is not None:
        raise Conflict(SETTINGS_PUT_ASIDE, code=CLEAR_PENDING)


def principal_capabilities(principal) -> Capabilities:
    """An authenticated service client's capabilities: its consumer's row of the table,
    narrowed by a platform operator's setting for this client. Anything else (a member,
    an operator, an anonymous caller) has none."""
    cached = getattr(principal, "_iris_capabilities", None)
    if cached is not None:
        return cached
    if not getattr(principal, "is_service", False):
        return capabilities_for("")
    capabilities = capabilities_for(principal.consumer)
    try:  # loaded with the bearer token (`memory.apps`), else read here
        narrowing = principal.capabilities
    except ServiceClientCapabilities.DoesNotExist:
        narrowing = None
    if narrowing is not None:
        capabilities = capabilities.narrowed(
            surfaces=narrowing.surfaces,
            contexts=narrowing.contexts,
            read_kinds=narrowing.read_kinds,
            write_kinds=narrowing.write_kinds,
        )
    principal._iris_capabilities = capabilities
    return capabilities


@dataclass(frozen=True, slots=True)
class _OwnControls:
    settings: MemorySettings
    clear_pending: bool
    off_the_record: bool
    is_member: bool  # an active member account
    in_tenant: bool  # a member of the tenant asked about (True when none was)


def _own_controls(*, member_id, session_id: str, tenant_id=None) -> _OwnControls:
    """The member's settings, whether a full clear of their memory is pending, whether
    this session (or every session) is off the record, and whether the id is an active
    member's (of ``tenant_id``, when given): what `member_memory_settings_get`,
    `memory_pending_clear`, `memory_off_the_record` and a lookup of the member answer, in
    one statement. Raw: it runs on every gated read, and the ORM spends longer building
    the reads than the database spends answering them."""
    quote = connection.ops.quote_name
    settings, clears, sessions, users, memberships = (
        MemberMemorySettings._meta,
        MemoryClearRequest._meta,
        OffTheRecordSession._meta,
        User._meta,
        TenantMembership._meta,
    )
    member = member_param(MemberMemorySettings, member_id)
    in_tenant = (
        "1 = 1"
        if tenant_id is None
        else f"EXISTS (SELECT 1 FROM {quote(memberships.db_table)} t"  # noqa: S608 - fixed names
        "   WHERE t.user_id = %s AND t.tenant_id = %s)"
    )
    statement = (
        "SELECT s.stop_using, s.auto_forget_months, s.paused_consumers,"  # noqa: S608 - fixed names
        f" EXISTS (SELECT 1 FROM {quote(clears.db_table)} c"
        "   WHERE c.member_id = %s AND c.state = %s),"
        f" EXISTS (SELECT 1 FROM {quote(sessions.db_table)} o"
        "   WHERE o.member_id = %s AND o.active AND o.session_id IN (%s, %s)),"
        f" EXISTS (SELECT 1 FROM {quote(users.db_table)} u"
        f"   WHERE u.id = %s AND u.kind = %s AND u.is_active), {in_tenant}"
        f" FROM (SELECT 1 AS one) AS one LEFT JOIN {quote(settings.db_table)} s"
        " ON s.member_id = %s"
    )
    tenant = memberships.get_field("tenant").get_db_prep_value(
        None if tenant_id is None else uuid.UUID(str(tenant_id)), connection
    )
    params = [
        member,
        MemoryClearRequest.State.PENDING,
        member,
        "",
        session_id,
        member,
        UserKind.MEMBER,
        *([] if tenant_id is None else [member, tenant]),
        member,
    ]
    with connection.cursor() as cursor:
        cursor.execute(statement, params)
        stop_using, months, consumers, clear_pending, off_record, is_member, in_tenant = (
            cursor.fetchone()
        )
    stored = settings.get_field("auto_forget_months")  # both JSON, decoded alike
    chosen = (
        DEFAULT_SETTINGS
        if stop_using is None  # no row: the member never changed a setting
        else settings_of(
            stop_using=stop_using,
            auto_forget_months=stored.from_db_value(months, None, connection),
            paused_consumers=stored.from_db_value(consumers, None, connection),
        )
    )
    return _OwnControls(
        chosen, bool(clear_pending), bool(off_record), bool(is_member), bool(in_tenant)
    )


def member_read_state(
    *,
    member_id,
    session_id: str = "",
    narrow_categories: Iterable[str] | None = None,
    now: datetime | None = None,
    tenant_id=None,
    must_be_member: bool = False,
) -> MemberState:
    """The member's state as the read gate needs it, from the ledger and their settings.
    ``narrow_categories`` can only take consented categories away. With
    ``must_be_member``, an id that is not an active member's (of ``tenant_id``, when
    given) is 404, read in the same statement as the member's controls."""
    own = _own_controls(member_id=member_id, session_id=session_id, tenant_id=tenant_id)
    if must_be_member and not (own.is_member and own.in_tenant):
        raise NotFound()
    active, opt_outs = consent_gate_state(member_id=member_id, now=now)
    categories = active.categories
    if narrow_categories is not None:
        categories = categories & frozenset(narrow_categories)
    return MemberState(
        member_id=str(member_id),
        consent_types=active.types,
        categories=categories,
        multi_actor_consented=active.allows(BaseConsentType.MULTI_ACTOR_SENSITIVE),
        opt_outs=opt_outs,
        # Which grant lets a surface read a sensitive token written on another device.
        cross_device_grant_id=active.grants.get(BaseConsentType.CROSS_DEVICE),
        clear_pending=own.clear_pending,
        off_the_record=own.off_the_record,
        stopped_use=own.settings.stop_using,
        paused_consumers=own.settings.paused_consumers,
        auto_forget_days=tuple(
            (kind, months_to_days(n)) for kind, n in sorted(own.settings.auto_forget_months.items())
        ),
    )


def memory_notice_list(*, member_id) -> QuerySet[MemoryNotice]:
    """The member's notices and questions; none while a full clear waits (they quote the
    hidden memories)."""
    pending = MemoryClearRequest.objects.filter(
        member_id=member_id, state=MemoryClearRequest.State.PENDING
    )
    return MemoryNotice.objects.filter(~Exists(pending), member_id=member_id).select_related(
        "entry"
    )


def memory_recall_list(*, member_id, entry_id=None) -> QuerySet[RecallRecord]:
    records = RecallRecord.objects.filter(member_id=member_id)
    if entry_id is not None:
        if connection.features.supports_json_field_contains:
            records = records.filter(returned_ids__contains=[str(entry_id)])
        else:
            # SQLite has no JSON containment. Ids are quoted fixed-length UUIDs in the
            # stored JSON text, so matching the quoted id is exact.
            records = records.filter(returned_ids__icontains=f'"{entry_id}"')
    return records


def memory_entry_who_looked(*, member_id, entry_id, limit: int = 20) -> list[dict]:
    """Who touched one memory, newest first: the recalls that returned it (the surface,
    when, and the rationale it surfaced with) and what the registered disclosure sources
    (`memory.access.disclosures`: inspections) report. Each item: `kind` ("recall" or the
    source's), `who`, `at`, `why`. Never memory content, never an operator's id."""
    items = [
        {
            "kind": "recall",
            "who": record.surface,
            "consumer": record.consumer,
            "at": record.created_at,
            "why": record.rationales.get(str(entry_id)) or "",
        }
        for record in memory_recall_list(member_id=member_id, entry_id=entry_id).order_by(
            "-created_at"
        )[:limit]
    ]
    for source in registered_disclosure_sources():
        items += source.entry_accesses(member_id=member_id, entry_id=entry_id)[:limit]
    items.sort(key=lambda item: item["at"], reverse=True)
    return items[:limit]


def scope_of(entry: MemoryEntry) -> dict:
    """The entry's scope key as the contract's dict (only its kind's identifiers)."""
    values = {
        "kind": entry.scope_kind,
        "user_id": str(entry.member_id),
        "tenant_id": str(entry.tenant_id) if entry.tenant_id else None,
        "operator_id": str(entry.operator_id) if entry.operator_id else None,
        **{column: getattr(entry, column) for column in SCOPE_COLUMNS},
    }
    return {"kind": entry.scope_kind} | {
        name: values[name] for name in SCOPE_IDENTIFIERS[entry.scope_kind]
    }


def suppression_of(entry: MemoryEntry) -> MemorySuppression | None:
    if not entry.suppression_reason:
        return None
    return MemorySuppression(
        reason=entry.suppression_reason,
        started_at=entry.suppression_started_at,
        ends_at=entry.suppression_ends_at,
        notes=entry.suppression_notes,
    )


def multi_actor_of(entry: MemoryEntry) -> MultiActor | None:
    if not entry.actor_handle:
        return None
    return MultiActor(
        actor_handle=entry.actor_handle,
        relationship_note=entry.relationship_note,
        sensitive_interaction=entry.sensitive_interaction,
    )


# --- An entry's consent records, as the ledger stands ----------------------------------------

# One event of a consent type as the records read it: (status, occurred_at, valid_until).
_LedgerMoment = tuple[str, datetime, datetime | None]


def _grant_ended_at(
    events: Iterable[_LedgerMoment], *, granted_at: datetime, now: datetime
) -> datetime | None:
    """When the grant a record names (given at `granted_at`) stopped being in force, by
    the ledger's events of its consent type in ledger order; None while it holds.

    In force means what the gates mean (`consent.policy.is_in_force`): granted and not
    past its end date, even before the expiry job has recorded the lapse. A later grant
    does not revive this one: a record is revoked at the first end after its grant."""
    in_force, until = True, None  # as the record says, when the ledger holds nothing before
    for status, occurred_at, valid_until in events:
        if occurred_at <= granted_at:
            in_force, until = status == ConsentStatus.GRANTED, valid_until
            continue
        if not in_force or (until is not None and until <= granted_at):
            break
        if until is not None and until <= occurred_at:
            return until
        if status != ConsentStatus.GRANTED:
            return occurred_at
        until = valid_until
    if not in_force or (until is not None and until <= granted_at):
        return granted_at  # the ledger did not hold it in force when the record says it did
    if until is not None and until <= now:
        return until
    return None


@dataclass(frozen=True, slots=True)
class ConsentLedgerView:
    """A member's consent ledger as entries' consent records read it: each consent type's
    events in ledger order, read once for any number of entries."""

    events: dict[str, list[_LedgerMoment]]
    now: datetime

    def records(self, records: Iterable[dict] | None) -> list[dict]:
        """An entry's stored consent records (`ConsentEntry`) as the ledger stands: a
        withdrawn, expired or lapsed grant says when it ended (`revoked_at`), whatever the
        entry recorded when it was written; entries are immutable revisions and a
        withdrawal never rewrites one. Every door that shows an entry's consent (the entry
        API, the data export) reads it here."""
        out = []
        for record in records or ():
            granted_at = datetime.fromisoformat(record["granted_at"])
            ended = _grant_ended_at(
                self.events.get(category_consent_type(record["category"]), ()),
                granted_at=granted_at,
                now=self.now,
            )
            stated = record.get("revoked_at")
            if stated:
                ended = min(filter(None, (datetime.fromisoformat(stated), ended)))
            out.append({**record, "revoked_at": iso(ended) if ended else None})
        return out


def consent_ledger_view(*, member_id, now: datetime | None = None) -> ConsentLedgerView:
    """One read of the member's consent ledger for `ConsentLedgerView.records`."""
    events: dict[str, list[_LedgerMoment]] = {}
    for consent_type, status, occurred_at, valid_until in (
        consent_event_list(member_id=member_id)
        .order_by("sequence")
        .values_list("consent_type", "status", "occurred_at", "valid_until")
    ):
        events.setdefault(consent_type, []).append((status, occurred_at, valid_until))
    return ConsentLedgerView(events, now or timezone.now())


def entry_contract(
    entry: MemoryEntry, *, consents: ConsentLedgerView | None = None
) -> MemoryEntryContract:
    """The stored entry as the seed's `MemoryEntry` contract (the API's wire shape), its
    consent records as the ledger stands (`ConsentLedgerView`). A caller writing many
    entries of one member reads the ledger once and hands it over as `consents`."""
    if entry.consent and consents is None:
        consents = consent_ledger_view(member_id=entry.member_id)
    # A list view prefetches `revisions`; a single entry reads them here, the current
    # one among them (not read again through the `revision` relation).
    revisions = sorted(entry.revisions.all(), key=lambda r: r.number)
    current = next((r for r in revisions if r.pk == entry.revision_id), None)
    return MemoryEntryContract(
        id=entry.pk,
        revision_id=entry.revision_id,
        previous_revision_id=current.previous_revision_id if current else None,
        user_id=entry.member_id,
        tenant_id=entry.tenant_id,
        scope=SCOPE_KEY_ADAPTER.validate_python(scope_of(entry)),
        category=entry.category,
        subject=entry.subject or None,
        body=entry.body,
        confidence=entry.confidence,
        origin=entry.origin,
        lifecycle=entry.lifecycle,
        consent=[ConsentEntry.model_validate(c) for c in consents.records(entry.consent)]
        if entry.consent
        else [],
        provenance_chain=[ProvenanceLink.model_validate(p) for p in entry.provenance_chain],
        expires_at=entry.expires_at,
        last_referenced_at=entry.last_referenced_at,
        reference_count=entry.reference_count,
        suppression=suppression_of(entry),
        multi_actor=multi_actor_of(entry),
        audit_chain=[
            AuditEntry(at=r.created_at, action=r.action, actor=r.actor, revision_id=r.pk)
            for r in revisions
        ],
        created_at=entry.created_at,
        updated_at=entry.updated_at,
        valid_from=entry.valid_from,
        valid_from_precision=entry.valid_from_precision,
        valid_to=entry.valid_to,
        valid_to_precision=entry.valid_to_precision,
    )


def memory_notebook_ids(*, member_id) -> list[str]:
    """The notebooks the member's memory lives in (identifiers only), sorted."""
    return sorted(
        set(
            memory_entry_list(member_id=member_id)
            .filter(scope_kind=ScopeKind.NOTEBOOK)
            .exclude(notebook_id="")
            .order_by()
            .values_list("notebook_id", flat=True)
        )
    )
