"""Processing a verified request: plain, idempotent, resumable functions (the task
wrappers in `datarights.tasks` only call them).

A job is a list of named steps. Each step runs in one transaction that also records it
as done in the request's `progress` (with a trail row), so a crash anywhere leaves every
step either wholly done and recorded or not done at all; re-running the job skips what
is recorded and redoes the rest. Long steps (purging, tombstoning) advance a cursor over
the request's frozen id list a batch per transaction. Writing the export file happens
outside a transaction (a partial file never carries the final name) and only the
recording of it is transactional, so a crash in between rewrites the file.

Delete, in order: snapshot the target ids (entries in scope + summaries derived from
them); soft only: hold them (hidden from recall and lists) for the grace window; collect
their text (sealed, for the check); erase them, a batch per transaction, through the one
erasure service (`memory.forgetting.erasure`), which purges every registered content store (turns,
recall records, notices, the term index, short-term memory, continuation tokens, export
files, revisions, entries, the bundle cache's generation); then what is tied to no entry,
by the delete's extent (`Erasure.covers`: the turn log with session memory, short-term
rows of the deleted scope kinds and categories, all of it when every scope is deleted);
purge consent events when asked; then the forget-completeness check over the same
registry decides `completed` (with the fingerprint of the sorted deleted-id set) or
`failed` (with a critical audit alert); either way the sealed text is dropped in that
same transaction. The check looks where the delete reached (its entries' rows and the
stores they reach), never for a placeholder or a short common string. An operator's
retry collects the text again from what is still stored and says how it searched
(`checked`: by id and text, or by id only for what was purged before the failure).
"""

import base64
import logging
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import datetime

from django.db import transaction
from django.db.models import Count
from django.utils import timezone

from consent.selectors import consent_active, consent_event_list
from consent.services import consent_ledger_purge
from datarights import conf, crypto
from datarights.contracts import AccessPayload, DeletePayload, ExportPayload
from datarights.enums import (
    DeleteMode,
    FailureCode,
    RequestKind,
    RequestStatus,
    TrailEvent,
)
from datarights.events import POLICY_ID, trail_append
from datarights.export import (
    art15,
    artifact_path,
    discard_partial,
    discard_stale_partials,
    file_sha256,
    member_dir,
    publish_artifact,
    write_artifact,
)
from datarights.models import DataRightsRequest
from datarights.policy import (
    DOWNLOAD_WINDOW,
    deleted_set_fingerprint,
    report_fingerprint,
)
from datarights.selectors import (
    STALLED_AFTER,
    datarights_downloads_due,
    datarights_grace_due,
    datarights_stalled,
)
from datarights.services import datarights_expire_unverified_due, datarights_request_transition
from iris_site.audit.actions import AuditAction
from iris_site.audit.enums import ActorType, Severity
from iris_site.audit.events import Actor, audit_event_append, iso
from iris_site.audit.policy import canonical_json
from iris_site.audit.sealing import Lister, audit_member_key_destroy
from iris_site.audit.selectors import audit_events_for_member
from iris_site.models import User
from memory.changes import change_events_last_id, member_notifications
from memory.enums import ScopeKind
from memory.forgetting.dsar import (
    memory_dsar_target_ids,
    memory_entry_counts,
    memory_hold_place,
    memory_store_counts,
)
from memory.forgetting.erasure import memory_erase, memory_erasure_residue, memory_erasure_texts
from memory.forgetting.services import memory_purge_entries
from memory.forgetting.stores import Hold, extent_hold

logger = logging.getLogger(__name__)

ACTOR = Actor.system("datarights")
PURGE_REASON = "dsar-delete"
BATCH = 500
# Runs of one request that made no progress before it is failed for an operator.
MAX_ATTEMPTS = 3


class _Stop(Exception):
    """The request is no longer in progress (cancelled, finished): leave it alone."""


def _lock(request_id) -> DataRightsRequest:
    return DataRightsRequest.objects.select_for_update().get(pk=request_id)


def _done(request: DataRightsRequest) -> set[str]:
    return set(request.progress.get("done", []))


def _save_progress(request: DataRightsRequest, progress: dict, now: datetime) -> None:
    request.progress = progress
    request.updated_at = now
    request.save()


def _mark(request: DataRightsRequest, name: str, counters: dict, now: datetime) -> None:
    progress = dict(request.progress)
    progress["done"] = [*progress.get("done", []), name]
    progress["attempts"] = 0
    progress.setdefault("counts", {})[name] = counters
    _save_progress(request, progress, now)
    trail_append(
        request=request,
        event=TrailEvent.STEP_COMPLETED,
        actor=ACTOR,
        detail={"step": name, **counters},
        now=now,
    )


def _step(request_id, name: str, action: Callable[[DataRightsRequest], dict | None], now):
    """Run `action` once: in one transaction with the record that it ran."""
    with transaction.atomic():
        request = _lock(request_id)
        if request.status != RequestStatus.IN_PROGRESS:
            raise _Stop
        if name in _done(request):
            return request
        counters = action(request) or {}
        _mark(request, name, counters, now)
        return request


def _batched_step(
    request_id,
    name: str,
    items: Sequence[str],
    action: Callable[[DataRightsRequest, list[str]], int],
    now,
) -> None:
    """Run `action` over `items` a batch per transaction, the cursor saved with each."""
    while True:
        with transaction.atomic():
            request = _lock(request_id)
            if request.status != RequestStatus.IN_PROGRESS:
                raise _Stop
            if name in _done(request):
                return
            progress = dict(request.progress)
            cursors = dict(progress.get("cursors", {}))
            totals = dict(progress.get("totals", {}))
            cursor = cursors.get(name, 0)
            if cursor >= len(items):
                _mark(request, name, {"count": totals.get(name, 0)}, now)
                return
            batch = list(items[cursor : cursor + BATCH])
            totals[name] = totals.get(name, 0) + action(request, batch)
            cursors[name] = cursor + len(batch)
            progress.update(cursors=cursors, totals=totals, attempts=0)
            _save_progress(request, progress, now)


# --- Entry point ---------------------------------------------------------------------------


def datarights_process(*, request_id, now: datetime | None = None) -> str:
    """Run, or resume, the processing of one request; returns its status afterwards.

    Safe to call any number of times, concurrently too: every step locks the request
    and skips what is already recorded.
    """
    now = now or timezone.now()
    run = _begin(request_id, now)
    if run is None:
        return DataRightsRequest.objects.get(pk=request_id).status
    kind = DataRightsRequest.objects.values_list("kind", flat=True).get(pk=request_id)
    try:
        if kind == RequestKind.EXPORT:
            _process_export(request_id, now)
        elif kind == RequestKind.ACCESS:
            _process_access(request_id, now)
        else:
            _process_delete(request_id, now)
    except _Stop:
        pass
    finally:
        _end_run(request_id, run)
    return DataRightsRequest.objects.get(pk=request_id).status


def _run_marker(now: datetime) -> tuple[str, dict]:
    token = uuid.uuid4().hex
    return token, {"token": token, "since": now.isoformat()}


@transaction.atomic
def _begin(request_id, now: datetime) -> str | None:
    """Start a run: None = nothing to do; "" = join a live run (or a soft delete's
    waiting window) without counting an attempt; a token = this run counts as an
    attempt and owns the request's run marker until `_end_run`.

    The marker tells a concurrent run (a re-enqueued job while a slow worker still runs
    it, the scheduler's resume beside a queued job) from a retry after a crash: a crash
    ends the run and clears the marker, a killed worker's marker goes stale after
    STALLED_AFTER."""
    request = DataRightsRequest.objects.select_for_update().filter(pk=request_id).first()
    if request is None:
        return None
    if request.status == RequestStatus.VERIFIED:
        token, marker = _run_marker(now)
        datarights_request_transition(
            request=request,
            to=RequestStatus.IN_PROGRESS,
            actor=ACTOR,
            enqueue=False,
            now=now,
            progress={**request.progress, "run": marker},
        )
        return token
    if request.status != RequestStatus.IN_PROGRESS:
        return None
    if request.grace_ends_at is not None and now < request.grace_ends_at:
        return ""  # a soft delete waiting out its window: nothing to count
    live = request.progress.get("run")
    if live and datetime.fromisoformat(live["since"]) > now - STALLED_AFTER:
        return ""  # another run is at work; the per-step locks keep them apart
    progress = dict(request.progress)
    progress["attempts"] = progress.get("attempts", 0) + 1
    if progress["attempts"] > MAX_ATTEMPTS:
        stuck = {"attempts": progress["attempts"] - 1}
        _alert(request, AuditAction.DATARIGHTS_PROCESSING_STUCK, stuck)
        datarights_request_transition(
            request=request,
            to=RequestStatus.FAILED,
            actor=ACTOR,
            now=now,
            failure_code=FailureCode.PROCESSING_ERROR,
            detail={"failure_code": FailureCode.PROCESSING_ERROR},
        )
        return None
    token, progress["run"] = _run_marker(now)
    _save_progress(request, progress, now)
    return token


def _end_run(request_id, token: str) -> None:
    """Clear this run's marker (if it is still this run's) whatever the outcome, and any
    marker (a killed run's) once the request is no longer in progress."""
    with transaction.atomic():
        request = DataRightsRequest.objects.select_for_update().filter(pk=request_id).first()
        if request is None or "run" not in request.progress:
            return
        owned = bool(token) and request.progress["run"].get("token") == token
        if not owned and request.status == RequestStatus.IN_PROGRESS:
            return
        progress = dict(request.progress)
        progress.pop("run")
        DataRightsRequest.objects.filter(pk=request_id).update(progress=progress)


def _alert(request: DataRightsRequest, action: str, payload: dict) -> None:
    """An operator must look: a critical event on the episodic chain."""
    audit_event_append(
        action=action,
        policy_id=POLICY_ID,
        actor=ACTOR,
        severity=Severity.CRITICAL,
        target_member_id=request.member_id,
        payload={"request_id": str(request.pk), "kind": request.kind, **payload},
    )


def _complete(request_id, now: datetime, *, detail: dict | None = None, **changes) -> None:
    with transaction.atomic():
        request = _lock(request_id)
        if request.status != RequestStatus.IN_PROGRESS:
            raise _Stop
        datarights_request_transition(
            request=request,
            to=RequestStatus.COMPLETED,
            actor=ACTOR,
            enqueue=False,
            now=now,
            detail=detail,
            **changes,
        )


# --- Export --------------------------------------------------------------------------------


def _process_export(request_id, now: datetime) -> None:
    request = DataRightsRequest.objects.get(pk=request_id)
    if "build" not in _done(request):
        payload = ExportPayload.model_validate(request.payload)
        state = crypto.unseal(request.work_state, server_secret=conf.server_secret())
        key = state.get("export_key", "").encode() or None
        salt = base64.urlsafe_b64decode(state["salt"]) if key else None
        if payload.encrypted and key is None:
            raise RuntimeError("an encrypted export lost its key")  # never: key sealed at submit
        # Each run writes its own partial; only the run that records the step publishes
        # it, under the request's lock, so concurrent runs (a job re-enqueued while a
        # slow worker still runs it) never interleave in one file or swap it afterwards.
        partial_name = f"{request.pk}.{uuid.uuid4().hex}.partial"
        try:
            name, digest, size = write_artifact(
                request_id=request.pk,
                member_id=request.member_id,
                payload=payload,
                # The bundle's own timestamp is the start of processing: a resumed job
                # rewrites the same document.
                generated_at=request.started_at or now,
                key=key,
                salt=salt,
                partial_name=partial_name,
            )

            def record(locked: DataRightsRequest) -> dict:
                publish_artifact(member_id=locked.member_id, partial_name=partial_name, name=name)
                discard_stale_partials(
                    member_id=locked.member_id, request_id=locked.pk, keep=partial_name
                )
                locked.artifact_name = name
                locked.artifact_size = size
                locked.artifact_sha256 = file_sha256(member_dir(locked.member_id) / name)
                locked.artifact_encrypted = key is not None
                locked.work_state = ""  # the derived key is not needed any more
                return {"bundle_sha256": digest, "size": size}

            _step(request_id, "build", record, now)
        finally:
            discard_partial(member_id=request.member_id, partial_name=partial_name)
    request = DataRightsRequest.objects.get(pk=request_id)
    fingerprint = request.progress["counts"]["build"]["bundle_sha256"]
    _complete(
        request_id,
        now,
        result_fingerprint=fingerprint,
        download_expires_at=now + DOWNLOAD_WINDOW,
        detail={"result_fingerprint": fingerprint},
    )


# --- Access --------------------------------------------------------------------------------


def build_access_report(request: DataRightsRequest, now: datetime) -> dict:
    """What Iris holds on the member, in counts (no content), and what it does with it."""
    payload = AccessPayload.model_validate(request.payload)
    requests = (
        DataRightsRequest.objects.filter(member_id=request.member_id)
        .values("kind", "status")
        .annotate(count=Count("pk"))
        .order_by("kind", "status")
    )
    report = {
        "format": "iris-dsar-access",
        "version": 1,
        "request_id": str(request.pk),
        "member_id": str(request.member_id),
        "generated_at": iso(now),
        "art15": art15(),
        "memory": {
            "entries": memory_entry_counts(member_id=request.member_id),
            "stores": memory_store_counts(member_id=request.member_id),
        },
        "consents_in_force": sorted(consent_active(member_id=request.member_id, now=now).types),
        "data_rights_requests": list(requests),
        # Which surfaces were told of the member's changes, when, and whether they
        # acknowledged (Art. 19): by name, never an endpoint; counts and times only.
        "notified_surfaces": [
            {**row, **{k: iso(row[k]) for k in NOTIFIED_TIMES if row[k] is not None}}
            for row in member_notifications(member_id=request.member_id)
        ],
    }
    if payload.include_operator_actions:
        # The member's own report: their special-category values show (resolved under
        # their audit key while it exists), operators' listings of their events included.
        own = Lister(covered=frozenset({str(request.member_id)}))
        events = (
            audit_events_for_member(member_id=request.member_id)
            .filter(actor_type=ActorType.OPERATOR)
            .order_by("-sequence")[:1000]
        )
        report["operator_actions"] = [
            {
                "event_id": str(e.pk),
                "action": e.action,
                "actor_role": e.actor_role,
                "occurred_at": iso(e.occurred_at),
                "payload": own.payload(e),
                **_in_words(e),
            }
            for e in events
        ]
    return report


NOTIFIED_TIMES = ("first_notified_at", "last_notified_at", "acknowledged_at")


def _in_words(event) -> dict:
    """What the operator did and why, in words (the member's page shows these)."""
    from datarights.summary import action_words, event_why, who_words, why_words

    payload = event.payload or {}
    # Why, in the event's own terms (an inspection's path, a reason code).
    why = event_why(payload)
    return {
        "who": who_words(event.actor_role),
        "what": action_words(event.action, payload),
        "why": why,
        "why_words": why_words(why),
    }


def _process_access(request_id, now: datetime) -> None:
    def report(locked: DataRightsRequest) -> dict:
        locked.access_report = build_access_report(locked, now)
        return {"report_sha256": report_fingerprint(canonical_json(locked.access_report))}

    request = _step(request_id, "report", report, now)
    fingerprint = request.progress["counts"]["report"]["report_sha256"]
    _complete(
        request_id, now, result_fingerprint=fingerprint, detail={"result_fingerprint": fingerprint}
    )


# --- Delete --------------------------------------------------------------------------------


def _process_delete(request_id, now: datetime) -> None:
    request = DataRightsRequest.objects.get(pk=request_id)
    payload = DeletePayload.model_validate(request.payload)

    def snapshot(locked: DataRightsRequest) -> dict:
        locked.deleted_ids = memory_dsar_target_ids(
            member_id=locked.member_id, scope_kinds=payload.scopes, categories=payload.categories
        )
        return {"target_count": len(locked.deleted_ids)}

    request = _step(request_id, "snapshot", snapshot, now)
    targets: list[str] = list(request.deleted_ids)

    if payload.mode == DeleteMode.SOFT:

        def hold(locked: DataRightsRequest) -> dict:
            locked.grace_ends_at = now + _grace(payload)
            held = memory_hold_place(
                member_id=locked.member_id,
                entry_ids=targets,
                request_id=locked.pk,
                release_after=locked.grace_ends_at,
                actor=ACTOR,
            )
            # What is tied to no entry (short-term memory) is hidden by the same extent.
            extent = _member_wide(payload)
            rows = extent_hold(
                Hold(
                    member_id=locked.member_id,
                    request_id=locked.pk,
                    release_after=locked.grace_ends_at,
                    scope_kinds=frozenset(extent["scope_kinds"]),
                    categories=frozenset(extent["categories"]),
                    everything=extent["everything"],
                )
            )
            counts = {"held_count": held, "held_rows": sum(rows.values())}
            trail_append(
                request=locked,
                event=TrailEvent.HELD,
                actor=ACTOR,
                detail={**counts, "grace_ends_at": iso(locked.grace_ends_at)},
                now=now,
            )
            return counts

        request = _step(request_id, "hold", hold, now)
        if now < request.grace_ends_at:
            return  # re-activatable until the window ends; `datarights_run_due` resumes it

    _erase(request_id, targets, payload, now)
    _finish_delete(request_id, targets, payload, now)


def _grace(payload: DeletePayload):
    from datetime import timedelta

    return timedelta(milliseconds=payload.retention_grace_ms)


def _sealed_texts(request: DataRightsRequest) -> list[str]:
    return crypto.unseal(request.work_state, server_secret=conf.server_secret()).get("texts", [])


def _member_wide(payload: DeletePayload) -> dict:
    """The delete's extent over the member's content tied to no entry (the turn log,
    short-term memory): rows of its scope kinds and categories (`Erasure.covers`), and
    everything when it names every scope and no category."""
    return {
        "scope_kinds": list(payload.scopes),
        "categories": list(payload.categories),
        "everything": set(payload.scopes) == set(ScopeKind.values) and not payload.categories,
    }


def _erase(request_id, targets: list[str], payload: DeletePayload, now: datetime) -> None:
    def collect(locked: DataRightsRequest) -> dict:
        """Seal the text the check searches for. A retry collects again (a failed request
        keeps none): what was purged before the failure is searched by id only, and the
        count says how much of the first collection that is."""
        texts = memory_erasure_texts(member_id=locked.member_id, entry_ids=targets)
        # The change events this delete writes are those after this marker (kept on a
        # retry): its proof lists the surfaces they told (`datarights_notified`).
        locked.progress = {"changes_after": change_events_last_id(), **locked.progress}
        locked.work_state = crypto.seal({"texts": texts}, server_secret=conf.server_secret())
        before = locked.progress.get("counts", {}).get("collect-text", {})
        first = before.get("first_text_count", before.get("text_count", len(texts)))
        return {"text_count": len(texts), "first_text_count": first}

    _step(request_id, "collect-text", collect, now)
    _batched_step(
        request_id,
        "erase-entries",
        targets,
        lambda locked, batch: memory_purge_entries(
            member_id=locked.member_id, entry_ids=batch, reason=PURGE_REASON
        ),
        now,
    )

    def erase_member_stores(locked: DataRightsRequest) -> dict:
        report = memory_erase(
            member_id=locked.member_id,
            entry_ids=(),
            actor=ACTOR,
            reason=PURGE_REASON,
            purge=True,
            **_member_wide(payload),
        )
        return {name.replace("-", "_"): count for name, count in report.counts.items()}

    _step(request_id, "erase-member-stores", erase_member_stores, now)
    consent_types = payload.consent_types_to_purge
    if consent_types:

        def purge_ledger(locked: DataRightsRequest) -> dict:
            member = User.objects.get(pk=locked.member_id)
            purged = consent_ledger_purge(
                member=member, consent_types=consent_types, dsar_request_id=locked.pk
            )
            return {"purged_count": purged}

        _step(request_id, "purge-consent-ledger", purge_ledger, now)


def forget_residue(
    request: DataRightsRequest, texts: Sequence[str], payload: DeletePayload
) -> dict[str, int]:
    """What of the deleted entries remains anywhere: every registered content store is
    asked (the same registry the erasure went through). Audit events keep ids on purpose
    and are not searched."""
    residue: Counter[str] = Counter(
        {
            name.replace("-", "_"): count
            for name, count in memory_erasure_residue(
                member_id=request.member_id,
                entry_ids=request.deleted_ids,
                texts=texts,
                purge=True,
                **_member_wide(payload),
            ).items()
        }
    )
    consent_types = payload.consent_types_to_purge
    if consent_types:
        residue["consent_events"] += (
            consent_event_list(member_id=request.member_id)
            .filter(consent_type__in=list(consent_types))
            .count()
        )
    return {k: v for k, v in sorted(residue.items()) if v}


def _finish_delete(request_id, targets: list[str], payload: DeletePayload, now: datetime) -> None:
    with transaction.atomic():
        request = _lock(request_id)
        if request.status != RequestStatus.IN_PROGRESS:
            raise _Stop
        # Erasing: the member's audit key goes, after the ledger purge's own event, so no
        # special-category value sealed in their chain resolves any more (whichever
        # categories the delete named: one key per member). The chain still verifies.
        audit_member_key_destroy(member_id=request.member_id)
        residue = forget_residue(request, _sealed_texts(request), payload)
        checked = _checked(request.progress)
        if not residue:
            fingerprint = deleted_set_fingerprint(targets)
            # The delete's own change events end here (the proof's upper marker).
            progress = {**request.progress, "changes_upto": change_events_last_id()}
            datarights_request_transition(
                request=request,
                to=RequestStatus.COMPLETED,
                actor=ACTOR,
                enqueue=False,
                now=now,
                result_fingerprint=fingerprint,
                progress=progress,
                # the erased text, sealed for this check, is not kept (the transition)
                work_state="",
                detail={
                    "result_fingerprint": fingerprint,
                    "deleted_count": len(targets),
                    **checked,
                },
            )
            return
        _alert(
            request,
            AuditAction.DATARIGHTS_FORGET_CHECK_FAILED,
            {"residue": residue, "residue_count": sum(residue.values()), **checked},
        )
        # The entries are erased; traces were found. Failed in this same transaction with
        # the sealed text dropped: the failed request holds none of it (ids and counts in
        # the trail), and an operator's retry runs the erasure and the check again.
        datarights_request_transition(
            request=request,
            to=RequestStatus.FAILED,
            actor=ACTOR,
            now=now,
            failure_code=FailureCode.FORGET_INCOMPLETE,
            work_state="",
            detail={
                "failure_code": FailureCode.FORGET_INCOMPLETE,
                "deleted_count": len(targets),
                "residue": residue,
                "residue_count": sum(residue.values()),
                **checked,
            },
        )


def _checked(progress: dict) -> dict:
    """How the check searched: by id and by every erased text, or — a retry after the
    text of purged entries was dropped with the failure — by id and what text was still
    stored (`text_count` of `first_text_count`)."""
    counts = progress.get("counts", {}).get("collect-text", {})
    found, first = counts.get("text_count", 0), counts.get("first_text_count", 0)
    if found >= first:
        return {"checked": "ids-and-text"}
    return {"checked": "ids" if not found else "ids-and-some-text", "texts_not_kept": first - found}


# --- Scheduled work ------------------------------------------------------------------------


def datarights_remove_expired_downloads(*, now: datetime | None = None) -> int:
    """Export files past their download window are deleted (storage limitation)."""
    now = now or timezone.now()
    removed = 0
    for request_id in datarights_downloads_due(now=now).values_list("pk", flat=True):
        with transaction.atomic():
            request = _lock(request_id)
            if request.artifact_removed_at is not None:
                continue
            path = artifact_path(request)
            if path is not None:
                path.unlink(missing_ok=True)
            request.artifact_removed_at = now
            request.updated_at = now
            request.save(update_fields=["artifact_removed_at", "updated_at"])
            trail_append(
                request=request,
                event=TrailEvent.ARTIFACT_REMOVED,
                actor=ACTOR,
                detail={"reason": "download-window-over"},
                now=now,
            )
            removed += 1
    return removed


def datarights_run_due(*, now: datetime | None = None) -> dict[str, int]:
    """Everything time-driven, idempotent: expire unverified requests, finish soft
    deletes whose grace ended, remove expired downloads, resume stalled jobs."""
    now = now or timezone.now()
    counts = {"expired": datarights_expire_unverified_due(now=now)}
    resumed = 0
    due = list(datarights_grace_due(now=now).values_list("pk", flat=True))
    stalled = list(datarights_stalled(now=now).values_list("pk", flat=True))
    for request_id in dict.fromkeys([*due, *stalled]):
        try:
            datarights_process(request_id=request_id, now=now)
        except Exception:  # one request's crash must not stop the others; it is retried
            logger.exception("data-rights request %s could not be processed", request_id)
        resumed += 1
    counts["resumed"] = resumed
    counts["downloads_removed"] = datarights_remove_expired_downloads(now=now)
    return counts


__all__ = [
    "datarights_process",
    "datarights_remove_expired_downloads",
    "datarights_run_due",
    "forget_residue",
]
