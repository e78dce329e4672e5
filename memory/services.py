"""Writes to memory. Every mutation appends a revision and an episodic audit event."""

import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from consent.enums import CaptureMethod, category_consent_type
from consent.selectors import consent_active, consent_gate_state, consent_latest_event
from consent.services import opt_out_record
from iris_site.audit.actions import AuditAction
from iris_site.audit.enums import ActorType, Severity
from iris_site.audit.events import Actor, audit_event_append, iso
from iris_site.audit.refusals import WriteKind, audit_write_refused
from iris_site.errors import Conflict, DomainError, InvalidInput, NotPermitted, PolicyRefusal
from iris_site.keys.envelope import unreadable
from iris_site.keys.fields import SealedJSONField, SealedTextField
from iris_site.models import ServiceClient, User
from iris_site.services import member_lock
from memory.access.capabilities import capabilities_for
from memory.access.origins import evaluate_origin, quoted_share
from memory.access.suppressions import evaluate_suppression
from memory.contracts import SCOPE_KEY_ADAPTER, MemoryWriteRequest, scope_key
from memory.controls import surface_pause_check
from memory.entities.derive import person_introduce
from memory.entities.policy import fact_told
from memory.entities.when import stated_times, time_words
from memory.enums import (
    ConflictOutcome,
    ConsentSource,
    EntryAuditAction,
    Lifecycle,
    Origin,
    ProvenanceKind,
    ScopeKind,
    is_sensitive_category,
)
from memory.forgetting import fingerprints
from memory.forgetting.notebooks import notebook_ensure_open
from memory.models import (
    ConversationTurn,
    MemoryEntry,
    MemoryNotice,
    OffTheRecordSession,
    ServiceClientCapabilities,
    conflict_token_read,
)
from memory.policy import conflicts, handles, scopes, storage
from memory.policy.fingerprints import fact_of
from memory.promotions import promotion_notice_open, promotion_settle
from memory.recall.context import context_anchors_record, entry_term_stats, with_body
from memory.recall.rankers import analyze
from memory.recall.store import corpus_stats_apply, entry_terms_index
from memory.reconfirm import reconfirm_settle
from memory.revisions import POLICY_ID, entry_lock, refuse_tombstoned, revision_append
from memory.selectors import (
    SCOPE_COLUMNS,
    ensure_no_pending_clear,
    ensure_settings_open,
    memory_cited_turns,
    memory_conflicting_entries,
    memory_off_the_record,
    memory_session_occurrences,
    scope_of,
)

PROVENANCE_TURN_NOT_FOUND = "provenance-turn-not-found"
ENTRY_UNREADABLE = "entry-unreadable"
SESSION_REQUIRED = "session-required"


def _consent_entries(member_id, category: str, active_types: frozenset[str]) -> list[dict]:
    """The per-entry consent record a sensitive entry carries, from the ledger's grant."""
    if not is_sensitive_category(category):
        return []
    consent_type = category_consent_type(category)
    if consent_type not in active_types:
        return []
    grant = consent_latest_event(member_id=member_id, consent_type=consent_type)
    source = {
        CaptureMethod.INLINE_PROMPT: ConsentSource.INLINE_PROMPT,
        CaptureMethod.DSAR_IMPORT: ConsentSource.DSAR_IMPORT,
    }.get(grant.capture_method, ConsentSource.SETTINGS_TOGGLE)
    return [
        {
            "category": category,
            "granted_at": iso(grant.occurred_at),
            "revoked_at": None,
            "source": str(source),
        }
    ]


def _apply_scope(entry: MemoryEntry, scope) -> None:
    values = scope.model_dump(mode="json")
    entry.scope_kind = scope.kind
    entry.scope_key = scope_key(scope)
    for column in SCOPE_COLUMNS:
        setattr(entry, column, values.get(column) or "")
    entry.operator_id = values.get("operator_id")
    entry.tenant_id = values.get("tenant_id")


def _check_scope(
    *, member: User, scope, consumer: str | None, now: datetime | None = None
) -> frozenset[str]:
    """Refuse a write the scope's policy refuses; return the consents in force, read
    with the opt-outs in one statement."""
    if (
        scope.kind == ScopeKind.TENANT
        and not member.tenant_memberships.filter(tenant_id=scope.tenant_id).exists()
    ):
        raise NotPermitted("The member does not belong to this tenant.", code="not-a-tenant-member")
    # The member's opt-outs, read under the member lock `memory_remember` holds (as
    # `opt_out_record` takes it): an opt-out committed first refuses this write.
    consents, opt_outs = consent_gate_state(member_id=member.pk, now=now)
    active = consents.types
    scope_policy = scopes.evaluate_kind_policy(
        scope.kind, active_consent_types=active, opt_outs=opt_outs, consumer=consumer
    )
    if not scope_policy.consumer_allowed:
        raise NotPermitted(" ".join(scope_policy.notes), code="consumer-not-allowed-for-scope")
    if not scope_policy.enabled:
        raise PolicyRefusal(" ".join(scope_policy.notes), code="scope-suppressed")
    if scope.kind == ScopeKind.NOTEBOOK:  # a closed or deleted notebook: 409
        notebook_ensure_open(member_id=member.pk, notebook_id=scope.notebook_id)
    return active


def _check_surface_paused(member: User, consumer: str | None) -> None:
    # A surface the member paused writes nothing of theirs (422 `surface-paused`).
    surface_pause_check(member_id=member.pk, consumer=consumer)


def _conflicts_with(entry: MemoryEntry):
    return memory_conflicting_entries(
        member_id=entry.member_id,
        tenant_id=entry.tenant_id,
        category=entry.category,
        actor_handle=entry.actor_handle,
        subject=entry.subject,
    )


def _fact_time_set(entry: MemoryEntry, *, told: datetime) -> None:
    """When the fact was true, as its words say it, told at `told` ("since 2019"; an
    unclear time stays open): `memory.entities.when`, kept apart from when Iris learned it."""
    time = fact_told(stated_times(entry.body, told=told))
    entry.valid_from, entry.valid_from_precision = time.valid_from, time.valid_from_precision
    entry.valid_to, entry.valid_to_precision = time.valid_to, time.valid_to_precision


def _create(entry: MemoryEntry, *, actor: Actor, now: datetime) -> None:
    entry.save(force_insert=True)
    corpus_stats_apply(member_id=entry.member_id, added=[(entry.pk, entry.term_stats)])
    entry_terms_index(member_id=entry.member_id, entries=[entry])
    context_anchors_record(entry=entry)
    revision_append(entry, action=EntryAuditAction.CREATED, actor=actor, now=now)


@dataclass(frozen=True, slots=True)
class RememberResult:
    """What a remember did: stored a new entry, kept the existing one in a conflict, or
    found the fact already stated in those words in that scope (`unchanged`: the existing
    entry, nothing written). `promotion` is the session → profile rule's reason code when
    a write aimed at the profile (`stored_as` says where it went: `profile`, or `session`
    when the rule kept it in the conversation it came from)."""

    entry: MemoryEntry
    created: bool
    conflict_rule: str | None = None
    notice: MemoryNotice | None = None
    promotion: str | None = None
    stored_as: str | None = None
    unchanged: bool = False

    @property
    def outcome(self) -> str:
        """`created`, `unchanged` or `kept-existing`: what the answer and the audit say."""
        if self.created:
            return "created"
        return "unchanged" if self.unchanged else "kept-existing"


def _restated(entry: MemoryEntry) -> MemoryEntry | None:
    """The live memory that already states this fact in these words (`fact_of`) in this
    scope: same category and conflict key, a source the write meets in the ladder. Bodies
    are sealed, so the scope's few rows of the key are opened and compared here."""
    rows = (
        MemoryEntry.objects.filter(
            member_id=entry.member_id,
            tenant_id=entry.tenant_id,
            scope_key=entry.scope_key,
            category=entry.category,
            conflict_key=conflict_token_read(entry.member_id, entry.conflict_key),
            actor_handle=entry.actor_handle,
            lifecycle__in=[Lifecycle.ACTIVE, Lifecycle.PAUSED],
            origin__in=sorted(conflicts.origins_met_by(entry.origin)),
        )
        .select_for_update()
        .order_by("-updated_at", "id")
    )
    fact = fact_of(entry.body)
    # The same words with another note on the person ("we broke up in March") say more:
    # a change for the ladder, not a restatement.
    return next(
        (
            row
            for row in rows
            if fact_of(row.body) == fact
            and row.relationship_note == entry.relationship_note
            and row.sensitive_interaction == entry.sensitive_interaction
        ),
        None,
    )


def _supersede_session_copies(entry: MemoryEntry, *, actor: Actor, now: datetime) -> None:
    """A fact stored in the profile replaces its copies in session memory (the mentions
    that promoted it, or a conversation the member's word now covers): one fact, one
    memory. Superseded, they still count as occurrences for the promotion rule."""
    if entry.scope_kind != ScopeKind.PROFILE or entry.lifecycle != Lifecycle.ACTIVE:
        return
    fact = fact_of(entry.body)
    for copy in MemoryEntry.objects.filter(
        member_id=entry.member_id,
        tenant_id=entry.tenant_id,
        scope_kind=ScopeKind.SESSION,
        category=entry.category,
        conflict_key=conflict_token_read(entry.member_id, entry.conflict_key),
        actor_handle=entry.actor_handle,
        lifecycle=Lifecycle.ACTIVE,
    ).select_for_update():
        if fact_of(copy.body) == fact:
            copy.lifecycle = Lifecycle.SUPERSEDED
            revision_append(copy, action=EntryAuditAction.SUPERSEDED, actor=actor, now=now)


def _session_of(scope) -> str:
    return getattr(scope, "session_id", "") or ""


def _check_not_forgotten(
    *,
    member_id,
    write: MemoryWriteRequest,
    actor: Actor,
    conflict_key: str,
    handle: str,
    name: str = "",
) -> None:
    """Nothing the member had Iris forget comes back by itself: a surface, job,
    consolidation or compaction re-creating a forgotten fact, or tagging, naming or
    mentioning a person the member had Iris forget (by any of their names, in any spelling
    a reader could not tell apart: `memory.policy.names`), is refused. The member stating
    it again brings it back."""
    names = {
        "handle": handle,
        "subject": write.subject or "",
        "text": "\n".join(
            (write.body, name, write.multi_actor.relationship_note if write.multi_actor else "")
        ),
    }
    if fingerprints.restated_by_member(actor=actor, origin=write.origin):
        cleared = fingerprints.fingerprints_clear(
            member_id=member_id, conflict_key=conflict_key, text=write.body
        )
        reinstated = fingerprints.names_reinstate(member_id=member_id, **names)
        if cleared or reinstated:
            audit_event_append(
                action=AuditAction.MEMORY_FORGOTTEN_RESTATED,
                policy_id=POLICY_ID,
                actor=actor,
                target_member_id=member_id,
                payload={"fingerprints_cleared": cleared, "handles_reinstated": reinstated},
            )
        return
    if refusal := fingerprints.name_refusal(member_id=member_id, **names):
        raise PolicyRefusal(
            "The member asked Iris to forget everything about this person; only they can "
            "bring the person back.",
            code=refusal,
        )
    if refusal := fingerprints.fingerprint_refusal(
        member_id=member_id, conflict_key=conflict_key, text=write.body
    ):
        raise PolicyRefusal(
            "The member asked Iris to forget this; only they can state it again.", code=refusal
        )


@dataclass(frozen=True, slots=True)
class _Evidence:
    """What the write's own provenance proves: the member's turns it quotes and the
    conversations it came from."""

    member_turns: int
    sessions: frozenset[str]
    # How much of the body the member's quoted turns say (`memory.access.origins.quoted_share`).
    quoted: float


def _evidence(*, member_id, write: MemoryWriteRequest, actor: Actor) -> _Evidence:
    refs = [link.ref for link in write.provenance if link.kind == ProvenanceKind.SESSION_TURN]
    turns = memory_cited_turns(member_id=member_id, refs=refs)
    if actor.type == ActorType.SERVICE and len(turns) != len(set(refs)):
        # A surface's provenance is checked, not believed: a link to a turn that does not
        # exist, or is another member's, is refused the same way (nothing tells which).
        raise PolicyRefusal(
            "A `session-turn` provenance link names no stored turn of this member.",
            code=PROVENANCE_TURN_NOT_FOUND,
        )
    said = [t for t in turns.values() if t.speaker == ConversationTurn.Speaker.MEMBER]
    return _Evidence(
        member_turns=len(said),
        sessions=frozenset(t.session_id for t in turns.values()),
        quoted=quoted_share(analyze(write.body), (term for t in said for term in analyze(t.text)))
        if said
        else 0.0,
    )


def _check_origin(*, write: MemoryWriteRequest, actor: Actor, evidence: _Evidence) -> None:
    decision = evaluate_origin(
        writer=actor.type,
        origin=write.origin,
        scope_kind=write.scope.kind,
        member_turns=evidence.member_turns,
        quoted=evidence.quoted,
    )
    if not decision.allowed:
        error = NotPermitted if decision.status == 403 else PolicyRefusal
        raise error(decision.message, code=decision.code)


def _writer_tenant_id(actor: Actor) -> str | None:
    """The tenant an operator writer is bound to, from its stored profile (None: not an
    operator, or a platform operator)."""
    if actor.type != ActorType.OPERATOR or actor.id is None:
        return None
    tenant = (
        User.objects.filter(pk=actor.id, operator_profile__isnull=False)
        .values_list("operator_profile__tenant_id", flat=True)
        .first()
    )
    return str(tenant) if tenant else None


def _check_suppression(*, write: MemoryWriteRequest, actor: Actor) -> None:
    """A suppression is bound to who writes it (`memory.access.suppressions`): the
    member pauses, a tenant's operator quarantines that tenant's memory, Iris sets the
    crisis frame and the sensitive-category hold; a surface writes none."""
    if write.suppression is None:
        return
    decision = evaluate_suppression(
        writer=actor.type,
        reason=write.suppression.reason,
        writer_tenant_id=_writer_tenant_id(actor),
        entry_tenant_id=getattr(write.scope, "tenant_id", None),
    )
    if not decision.allowed:
        raise NotPermitted(decision.message, code=decision.code)


def _conversation(*, write: MemoryWriteRequest, session_id: str, evidence: _Evidence) -> str:
    """The conversation a surface's write comes from: the one it names, else the one its
    quoted turns belong to."""
    if session_id:
        return session_id
    return _session_of(write.scope) or min(evidence.sessions, default="")


def _promote_or_keep_in_session(
    *,
    member: User,
    write: MemoryWriteRequest,
    evidence: _Evidence,
    conversation: str,
    handle: str,
) -> tuple[MemoryWriteRequest, str]:
    """A surface's write into the profile is a session → profile promotion: the member's
    own words (quoted turns) are an explicit request, else the fact must be the third
    occurrence in session memory. Otherwise it stays in the conversation it came from,
    as session memory, with the rule's reason code. Either way it names the conversation
    it came from (off the record is checked against it): a third occurrence sent without
    one is refused like any other."""
    if not conversation:
        raise InvalidInput(
            "A surface's write into the profile comes from a conversation: name it with "
            "`session_id` (or quote the member's turns).",
            code=SESSION_REQUIRED,
            fields={"session_id": ["Required for a profile write from a surface."]},
        )
    occurrences = memory_session_occurrences(
        member_id=member.pk,
        category=write.category,
        conflict_key=conflicts.conflict_key(
            category=write.category, actor_handle=handle, subject=write.subject
        ),
        body=write.body,
    )
    decision = conflicts.evaluate_session_profile_promotion(
        explicit=write.origin == Origin.USER_STATED and evidence.member_turns > 0,
        occurrences=occurrences + 1,
    )
    if decision.allowed:
        return write, decision.reason
    session_scope = SCOPE_KEY_ADAPTER.validate_python(
        {"kind": ScopeKind.SESSION, "user_id": str(member.pk), "session_id": conversation}
    )
    return write.model_copy(update={"scope": session_scope}), decision.reason


def memory_remember(
    *,
    member: User,
    write: MemoryWriteRequest,
    actor: Actor,
    consumer: str | None = None,
    session_id: str = "",
    promoted: str | None = None,
    now: datetime | None = None,
) -> RememberResult:
    """The consent-checked write path: provenance and origin (bound to who writes) →
    off-the-record (every conversation the write comes from) → session → profile
    promotion → scope policy → privacy storage gate → forgotten facts and people →
    conflict ladder → revision. Refusals raise with the seed's reason code and leave an
    audit event (ids and codes only) that survives the rolled-back write.

    `promoted` is for a caller that already applied the promotion rule (short-term
    consolidation): its reason code, and the rule is not applied twice."""
    try:
        return _remember(
            member=member,
            write=write,
            actor=actor,
            consumer=consumer,
            session_id=session_id,
            promoted=promoted,
            now=now or timezone.now(),
        )
    except DomainError as exc:
        audit_write_refused(
            exc,
            write=WriteKind.REMEMBER,
            actor=actor,
            member_id=member.pk,
            consumer=consumer,
            scope_kind=write.scope.kind,
        )
        raise


@transaction.atomic
def _remember(
    *,
    member: User,
    write: MemoryWriteRequest,
    actor: Actor,
    consumer: str | None,
    session_id: str,
    promoted: str | None,
    now: datetime,
) -> RememberResult:
    # One remember per member at a time, and consent is read under the same lock the
    # consent cascade takes: a withdrawal either commits before this reads it (refused)
    # or its cascade waits for this write to commit and then forgets it. The lock also
    # keeps two writers that both find no conflicting row from each creating one (and it
    # takes the member's audit chain before any entry row is locked: `member_lock`).
    member_lock(member_id=member.pk)
    ensure_no_pending_clear(member_id=member.pk)
    _check_suppression(write=write, actor=actor)
    evidence = _evidence(member_id=member.pk, write=write, actor=actor)
    conversation = _conversation(write=write, session_id=session_id, evidence=evidence)
    if memory_off_the_record(
        member_id=member.pk, session_id=conversation, sessions=evidence.sessions
    ):
        raise PolicyRefusal("Off the record: nothing is remembered right now.", code="paused")
    _check_origin(write=write, actor=actor, evidence=evidence)
    multi_actor = write.multi_actor
    handle = ""
    if multi_actor is not None:
        handle = multi_actor.actor_handle or handles.actor_handle(
            secret=settings.IRIS_HASH_SECRET.encode(),
            member_id=member.pk,
            raw_name=multi_actor.actor_name,
        )
    promotion = promoted
    if (
        promoted is None
        and actor.type == ActorType.SERVICE
        and write.scope.kind == ScopeKind.PROFILE
    ):
        write, promotion = _promote_or_keep_in_session(
            member=member, write=write, evidence=evidence, conversation=conversation, handle=handle
        )
    active = _check_scope(member=member, scope=write.scope, consumer=consumer, now=now)
    _check_surface_paused(member, consumer)
    gate = storage.evaluate_privacy_storage_gate(
        category=write.category,
        origin=write.origin,
        multi_actor_sensitive=bool(multi_actor and multi_actor.sensitive_interaction),
        active_consent_types=active,
    )
    if not gate.allowed:
        raise PolicyRefusal(gate.message, code=gate.reason)
    conflict_key = conflicts.conflict_key(
        category=write.category, actor_handle=handle, subject=write.subject
    )
    _check_not_forgotten(
        member_id=member.pk,
        write=write,
        actor=actor,
        conflict_key=conflict_key,
        handle=handle,
        name=(multi_actor.actor_name or "") if multi_actor else "",
    )
    if handle:
        person_introduce(
            member_id=member.pk,
            actor_handle=handle,
            name=multi_actor.actor_name,
            actor=actor,
            origin=write.origin,
            now=now,
        )

    entry = MemoryEntry(
        id=uuid.uuid4(),
        member=member,
        category=write.category,
        subject=write.subject or "",
        body=write.body,
        origin=write.origin,
        lifecycle=Lifecycle.ACTIVE,
        confidence=write.confidence
        if write.confidence is not None
        else storage.confidence_for_origin(write.origin),
        conflict_key=conflict_key,
        actor_handle=handle,
        relationship_note=multi_actor.relationship_note if multi_actor else "",
        sensitive_interaction=bool(multi_actor and multi_actor.sensitive_interaction),
        provenance_chain=[link.model_dump(mode="json") for link in write.provenance],
        consent=_consent_entries(member.pk, write.category, active),
        term_stats=entry_term_stats(
            member_id=member.pk,
            body=write.body,
            provenance_chain=[link.model_dump(mode="json") for link in write.provenance],
        ),
        created_at=now,
        updated_at=now,
    )
    _fact_time_set(entry, told=now)
    if write.suppression is not None:
        entry.suppression_reason = write.suppression.reason
        entry.suppression_started_at = write.suppression.started_at
        entry.suppression_ends_at = write.suppression.ends_at
        entry.suppression_notes = write.suppression.notes
    _apply_scope(entry, write.scope)

    outcome = {
        "promotion": promotion,
        "stored_as": write.scope.kind if promotion is not None else None,
    }
    restated = _restated(entry)
    if restated is not None and not conflicts.outranks(
        new_origin=entry.origin, existing_origin=restated.origin
    ):
        return RememberResult(entry=restated, created=False, unchanged=True, **outcome)
    # A restatement by the member of what was inferred meets it in the ladder (their word
    # replaces the inference); anything else meets what shares its conflict key.
    existing = restated or (
        _conflicts_with(entry)
        .filter(origin__in=sorted(conflicts.origins_met_by(entry.origin)))
        .select_for_update()
        .order_by("-updated_at", "id")
        .first()
    )
    if existing is None:
        _create(entry, actor=actor, now=now)
        _supersede_session_copies(entry, actor=actor, now=now)
        promotion_notice_open(entry, promotion=promotion, now=now)
        return RememberResult(entry=entry, created=True, **outcome)

    resolution = conflicts.resolve_write_conflict(
        existing_origin=existing.origin,
        existing_updated_at=existing.updated_at,
        new_origin=entry.origin,
        new_updated_at=now,
    )
    conflict_payload = {
        "existing_entry_id": str(existing.pk),
        "existing_origin": existing.origin,
        "new_origin": entry.origin,
        "rule": resolution.rule,
        "outcome": resolution.outcome,
    }
    if resolution.outcome == ConflictOutcome.KEEP_EXISTING:
        notice = None
        if resolution.ask_member:
            # Hold the proposal as a draft the member can accept; never overwrite silently.
            entry.lifecycle = Lifecycle.DRAFT
            _create(entry, actor=actor, now=now)
            notice = MemoryNotice.objects.create(
                member=member,
                kind=MemoryNotice.Kind.CONFLICT_QUESTION,
                entry=existing,
                proposed_entry=entry,
                rule=resolution.rule,
                created_at=now,
            )
            conflict_payload["notice_id"] = str(notice.pk)
            conflict_payload["proposed_entry_id"] = str(entry.pk)
        audit_event_append(
            action=AuditAction.MEMORY_CONFLICT_RESOLVED,
            policy_id=POLICY_ID,
            actor=actor,
            severity=Severity.WARNING,
            target_member_id=member.pk,
            payload=conflict_payload,
        )
        return RememberResult(
            entry=existing, created=False, conflict_rule=resolution.rule, notice=notice, **outcome
        )

    _create(entry, actor=actor, now=now)
    existing.lifecycle = Lifecycle.SUPERSEDED
    revision_append(existing, action=EntryAuditAction.SUPERSEDED, actor=actor, now=now)
    _supersede_session_copies(entry, actor=actor, now=now)
    promotion_notice_open(entry, promotion=promotion, now=now)
    conflict_payload["new_entry_id"] = str(entry.pk)
    audit_event_append(
        action=AuditAction.MEMORY_CONFLICT_RESOLVED,
        policy_id=POLICY_ID,
        actor=actor,
        target_member_id=member.pk,
        payload=conflict_payload,
    )
    return RememberResult(entry=entry, created=True, conflict_rule=resolution.rule, **outcome)


@transaction.atomic
def memory_notice_answer(*, notice: MemoryNotice, accept: bool, actor: Actor) -> MemoryNotice:
    """The member answers "should I update?". Accepting makes the proposal their confirmed
    word in the corrected fact's scope (`conflicts.accept_correction`: where the fact was,
    not where the proposal was held, e.g. the conversation the promotion rule kept an
    assistant's profile inference in) and supersedes the old wording; the scope is checked
    as a write there (refused: nothing changes, the question stays open). Declining drops
    the draft. Audited with ids and scope kinds only."""
    # The member lock first, as every writer: the scope check reads opt-outs under it.
    member_lock(member_id=notice.member_id)
    ensure_no_pending_clear(member_id=notice.member_id)
    notice = MemoryNotice.objects.select_for_update().get(pk=notice.pk)
    if notice.state != MemoryNotice.State.OPEN:
        raise Conflict("This question was already answered.", code="notice-answered")
    if notice.proposed_entry_id is None:
        raise Conflict("This notice has no proposal to accept or decline.", code="no-proposal")
    now = timezone.now()
    proposal = entry_lock(notice.proposed_entry)
    stored_in = moved_from = None
    if accept:
        existing = entry_lock(notice.entry)
        decision = conflicts.accept_correction(
            corrected_scope_kind=existing.scope_kind, proposed_scope_kind=proposal.scope_kind
        )
        scope = SCOPE_KEY_ADAPTER.validate_python(scope_of(existing))
        _check_scope(
            member=User.objects.get(pk=notice.member_id),
            scope=scope,
            consumer=None,
            now=now,
        )
        _apply_scope(proposal, scope)
        proposal.lifecycle = Lifecycle.ACTIVE
        proposal.origin = decision.origin
        proposal.confidence = storage.confidence_for_origin(decision.origin)
        revision_append(proposal, action=EntryAuditAction.CONFIRMED, actor=actor, now=now)
        existing.lifecycle = Lifecycle.SUPERSEDED
        revision_append(existing, action=EntryAuditAction.SUPERSEDED, actor=actor, now=now)
        stored_in, moved_from = decision.scope_kind, decision.moved_from
        notice.entry = existing
    else:
        proposal.lifecycle = Lifecycle.TOMBSTONED
        revision_append(proposal, action=EntryAuditAction.TOMBSTONED, actor=actor, now=now)
    notice.proposed_entry = proposal  # the answer shows the entries as they are now
    notice.state = MemoryNotice.State.ACCEPTED if accept else MemoryNotice.State.DISMISSED
    notice.answered_at = now
    notice.save(update_fields=["state", "answered_at"])
    audit_event_append(
        action=AuditAction.MEMORY_CONFLICT_ANSWERED,
        policy_id=POLICY_ID,
        actor=actor,
        target_member_id=notice.member_id,
        target_tenant_id=proposal.tenant_id,
        payload={
            "notice_id": str(notice.pk),
            "entry_id": str(notice.entry_id),
            "proposed_entry_id": str(proposal.pk),
            "answer": notice.state,
            "scope_kind": stored_in,
            "moved_from_scope_kind": moved_from,
        },
        occurred_at=now,
    )
    return notice


@dataclass(frozen=True, slots=True)
class EditPreview:
    """What saving an edit would do, shown before the member saves."""

    conflicting_entry_ids: tuple[uuid.UUID, ...]
    storage_refusal: str | None


# Only a memory's current version is edited: the head revision of a live entry (active,
# or paused: a paused memory is still the member's current fact, only withheld from
# recall). A superseded entry or a draft proposal never becomes a second active fact.
EDITABLE_LIFECYCLES = frozenset({Lifecycle.ACTIVE, Lifecycle.PAUSED})
NOT_HEAD = "not-head"


def _require_head(entry: MemoryEntry, revision_id: uuid.UUID | None) -> None:
    """Refuse (409 `not-head`) an edit of anything but the current version: a superseded
    or draft entry, or a revision (`revision_id`, as the editor read it) that is no longer
    the entry's head. The error names the current version in `fields`, `current_entry_id`
    and `current_revision_id`: the entry itself for a stale revision, else the live entry
    holding the same fact now (none when nothing does)."""
    refuse_tombstoned(entry)
    if entry.lifecycle in EDITABLE_LIFECYCLES:
        if revision_id is None or str(revision_id) == str(entry.revision_id):
            return
        current = entry
        message = "This version was replaced by a newer one; edit the current version."
    else:
        current = _conflicts_with(entry).exclude(pk=entry.pk).order_by("-updated_at", "id").first()
        message = (
            "This is a proposed change waiting for your answer; answer the question about "
            "it, or edit the current version."
            if entry.lifecycle == Lifecycle.DRAFT
            else "This memory was replaced; only its current version can be edited."
        )
    fields = (
        {"current_entry_id": [str(current.pk)], "current_revision_id": [str(current.revision_id)]}
        if current is not None
        else {}
    )
    raise Conflict(message, code=NOT_HEAD, fields=fields)


def _require_readable(entry: MemoryEntry) -> None:
    """Refuse to restate an entry any of whose sealed fields cannot be opened (altered,
    or sealed under a key this deployment no longer has): it reads as empty, and an edit
    would record that empty value in the new revision and recompute the conflict key
    from it (409 `entry-unreadable`, as consolidation refuses `stm-unreadable`)."""
    damaged = [
        field.name
        for field in entry._meta.concrete_fields
        if isinstance(field, SealedTextField | SealedJSONField)
        and unreadable(getattr(entry, field.attname))
    ]
    if damaged:
        raise Conflict(
            "This memory cannot be read (its stored text is damaged or its key is gone), so "
            "it cannot be edited. You can still delete it.",
            code=ENTRY_UNREADABLE,
            fields={"unreadable": damaged},
        )


def memory_edit_preview(
    *, entry: MemoryEntry, category: str, subject: str, revision_id: uuid.UUID | None = None
) -> EditPreview:
    """What `memory_edit` would do, refusing exactly what it refuses before it would save."""
    ensure_no_pending_clear(member_id=entry.member_id)
    _require_head(entry, revision_id)
    _require_readable(entry)
    others = memory_conflicting_entries(
        member_id=entry.member_id,
        tenant_id=entry.tenant_id,
        category=category,
        actor_handle=entry.actor_handle,
        subject=subject,
    ).exclude(pk=entry.pk)
    gate = storage.evaluate_privacy_storage_gate(
        category=category,
        origin=Origin.USER_STATED,
        multi_actor_sensitive=entry.sensitive_interaction,
        active_consent_types=consent_active(member_id=entry.member_id).types,
    )
    return EditPreview(
        conflicting_entry_ids=tuple(others.values_list("pk", flat=True)),
        storage_refusal=None if gate.allowed else gate.reason,
    )


@transaction.atomic
def memory_edit(
    *,
    entry: MemoryEntry,
    actor: Actor,
    body: str | None = None,
    subject: str | None = None,
    category: str | None = None,
    revision_id: uuid.UUID | None = None,
) -> MemoryEntry:
    """The member restates a memory: a new revision; the member's word supersedes the
    others sharing its new conflict key (explicit-user-trumps-inferred).

    Only the current version is edited (`_require_head`): editing a superseded or draft
    entry, or a stale `revision_id`, is 409 `not-head`, and the member's active fact
    stays as it is. Nothing is edited while a full clear is pending."""
    member_lock(member_id=entry.member_id)
    ensure_no_pending_clear(member_id=entry.member_id)
    entry = entry_lock(entry)
    _require_head(entry, revision_id)
    _require_readable(entry)
    if entry.scope_kind == ScopeKind.NOTEBOOK:  # a closed notebook takes no new wording
        notebook_ensure_open(member_id=entry.member_id, notebook_id=entry.notebook_id)
    now = timezone.now()
    category = category or entry.category
    active = consent_active(member_id=entry.member_id, now=now).types
    gate = storage.evaluate_privacy_storage_gate(
        category=category,
        origin=Origin.USER_STATED,
        multi_actor_sensitive=entry.sensitive_interaction,
        active_consent_types=active,
    )
    if not gate.allowed:
        raise PolicyRefusal(gate.message, code=gate.reason)
    if body is not None:
        stats = with_body(entry, body)
        corpus_stats_apply(
            member_id=entry.member_id,
            added=[(entry.pk, stats)],
            removed=[(entry.pk, entry.term_stats)],
        )
        # Time words the edit kept ("until March") mean what they meant when first told;
        # new ones are read as of now, when the member wrote them.
        same_words = time_words(body) == time_words(entry.body)
        entry.body = body
        entry.term_stats = stats
        _fact_time_set(entry, told=entry.created_at if same_words else now)
        entry_terms_index(member_id=entry.member_id, entries=[entry])
    if subject is not None:
        entry.subject = subject
    entry.category = category
    entry.consent = _consent_entries(entry.member_id, category, active)
    entry.conflict_key = conflicts.conflict_key(
        category=category, actor_handle=entry.actor_handle, subject=entry.subject
    )
    # An edit by the member is a statement by the member.
    entry.origin = Origin.USER_STATED
    entry.confidence = storage.confidence_for_origin(Origin.USER_STATED)
    revision_append(entry, action=EntryAuditAction.EDITED, actor=actor, now=now)
    for other in _conflicts_with(entry).exclude(pk=entry.pk).select_for_update():
        other.lifecycle = Lifecycle.SUPERSEDED
        revision_append(other, action=EntryAuditAction.SUPERSEDED, actor=actor, now=now)
    reconfirm_settle(entry, state=MemoryNotice.State.EDITED, actor=actor, now=now)
    promotion_settle(entry, state=MemoryNotice.State.EDITED, actor=actor, now=now)
    return entry


@transaction.atomic
def memory_confirm(*, entry: MemoryEntry, actor: Actor) -> MemoryEntry:
    """The member confirms an inference: model-inferred → user-confirmed."""
    member_lock(member_id=entry.member_id)
    ensure_no_pending_clear(member_id=entry.member_id)
    entry = entry_lock(entry)
    if entry.origin not in (Origin.MODEL_INFERRED, Origin.SUMMARIZED_FROM_SESSION):
        raise Conflict("Only an inference can be confirmed.", code="not-an-inference")
    if entry.lifecycle == Lifecycle.DRAFT:
        entry.lifecycle = Lifecycle.ACTIVE
    entry.origin = Origin.USER_CONFIRMED
    entry.confidence = storage.confidence_for_origin(Origin.USER_CONFIRMED)
    now = timezone.now()
    revision_append(entry, action=EntryAuditAction.CONFIRMED, actor=actor, now=now)
    reconfirm_settle(entry, state=MemoryNotice.State.CONFIRMED, actor=actor, now=now)
    promotion_settle(entry, state=MemoryNotice.State.KEPT, actor=actor, now=now)
    return entry


@transaction.atomic
def memory_change_scope(*, entry: MemoryEntry, scope, actor: Actor) -> MemoryEntry:
    """Move a memory between scopes within the per-scope rules."""
    member_lock(member_id=entry.member_id)
    ensure_no_pending_clear(member_id=entry.member_id)
    entry = entry_lock(entry)
    decision = scopes.evaluate_scope_change(entry.scope_kind, scope.kind)
    if not decision.allowed:
        raise PolicyRefusal(decision.explanation, code=decision.reason)
    member = User.objects.get(pk=entry.member_id)
    _check_scope(member=member, scope=scope, consumer=None)
    _apply_scope(entry, scope)
    revision_append(entry, action=EntryAuditAction.SCOPE_CHANGED, actor=actor, now=timezone.now())
    return entry


@transaction.atomic
def member_opt_out_set(*, member: User, category: str, opted_out: bool, witness: str, actor: Actor):
    """Turn a kind of memory off or back on (`consent.services.opt_out_record`, the
    ledger), unless a full clear waits: then the switches are put aside and the change is
    refused, nothing recorded (`ensure_settings_open`). The pages and the API both come
    here."""
    member_lock(member_id=member.pk)
    ensure_settings_open(member_id=member.pk)
    return opt_out_record(
        member=member, category=category, opted_out=opted_out, witness=witness, actor=actor
    )


@transaction.atomic
def memory_off_the_record_set(
    *, member: User, active: bool, actor: Actor, session_id: str = ""
) -> OffTheRecordSession:
    """Turn off-the-record on or off for a session ("" = every session of the member).
    A switch of the member's: put aside while a full clear waits (`ensure_settings_open`)."""
    member_lock(member_id=member.pk)
    ensure_settings_open(member_id=member.pk)
    state, _ = OffTheRecordSession.objects.update_or_create(
        member=member,
        session_id=session_id,
        defaults={"active": active, "changed_at": timezone.now()},
    )
    audit_event_append(
        action=AuditAction.MEMORY_OFF_THE_RECORD_CHANGED,
        policy_id=POLICY_ID,
        actor=actor,
        target_member_id=member.pk,
        payload={"active": active, "session_scoped": bool(session_id)},
    )
    return state


@transaction.atomic
def service_client_capabilities_set(
    *,
    service_client: ServiceClient,
    actor: Actor,
    reason: str,
    surfaces: Iterable[str] | None = None,
    contexts: Iterable[str] | None = None,
    read_kinds: Iterable[str] | None = None,
    write_kinds: Iterable[str] | None = None,
) -> ServiceClientCapabilities:
    """A platform operator narrows one service client's capabilities (None: that
    dimension follows the consumer's row of the table). Every value must lie within that
    row: a narrowing takes away, and a value outside it is refused, never stored."""
    table = capabilities_for(service_client.consumer)
    given = {
        "surfaces": surfaces,
        "contexts": contexts,
        "read_kinds": read_kinds,
        "write_kinds": write_kinds,
    }
    wider = {
        name: sorted(set(values) - getattr(table, name))
        for name, values in given.items()
        if values is not None
    }
    if any(wider.values()):
        raise InvalidInput(
            f"A narrowing can only take away from consumer `{service_client.consumer}`'s "
            "capabilities.",
            code="capabilities-widened",
            fields={
                name: [f"Not among the consumer's capabilities: {', '.join(extra)}."]
                for name, extra in wider.items()
                if extra
            },
        )
    row = ServiceClientCapabilities.objects.select_for_update().filter(
        service_client=service_client
    ).first() or ServiceClientCapabilities(service_client=service_client)
    for name, values in given.items():
        setattr(row, name, None if values is None else sorted(set(values)))
    row.reason = reason.strip()
    row.full_clean()
    row.save()
    audit_event_append(
        action=AuditAction.MEMORY_SERVICE_CLIENT_CAPABILITIES_SET,
        policy_id=POLICY_ID,
        actor=actor,
        # The reason is prose: it stays on the row.
        payload={
            "service_client_id": str(service_client.pk),
            "consumer": service_client.consumer,
            **{name: getattr(row, name) for name in given},
        },
    )
    return row
