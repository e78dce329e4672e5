"""`manage.py keys_encrypt`: seal in place what a database written before encryption at
rest holds in clear, then re-index every member's recall index with keyed tokens."""

import json
from collections import Counter

from django.apps import apps
from django.core.management.base import BaseCommand
from django.db import connection, models, transaction
from django.db.models import Q
from django.db.models.functions import Cast, Substr
from django.utils.module_loading import import_string
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from iris_site.appendonly import append_only_models, sqlite_set_triggers
from iris_site.audit.actions import AuditAction
from iris_site.audit.events import Actor, audit_event_append
from iris_site.crypto import ContentUnreadable
from iris_site.crypto import decrypt as legacy_decrypt
from iris_site.keys.envelope import PREFIX, seal
from iris_site.keys.fields import KeyedTokenField, SealedJSONField, SealedTextField

# A column that holds member content sealed, or a keyed token of it.
KEYED_FIELDS = (SealedTextField, KeyedTokenField)

POLICY_ID = "iris.iris_site.keys.v1"
# Memory's re-index of one member's recall index with keyed tokens, named by path (as
# settings name classes) so the foundation imports no app above it.
REINDEX = "memory.recall.store.member_index_rekey"
_LEGACY_FERNET = "gAAAAA"  # a Fernet token under the app key (entity labels, short-term rows)


def sealed_models() -> list[tuple[type[models.Model], list[SealedTextField | KeyedTokenField]]]:
    """Every model with sealed or keyed-token fields, found through the app registry."""
    found = []
    for model in apps.get_models():
        fields = [f for f in model._meta.concrete_fields if isinstance(f, KEYED_FIELDS)]
        if fields:
            found.append((model, fields))
    return sorted(found, key=lambda item: item[0]._meta.label)


def _raw(field: SealedTextField) -> str:
    return f"_raw_{field.attname}"


def _pending(fields: list[SealedTextField]) -> Q:
    """Rows with a value in any sealed column that is not a sealed token yet."""
    q = Q()
    for field in fields:
        raw = _raw(field)
        if isinstance(field, KeyedTokenField):  # a plain value, not a token yet
            q |= Q(**{f"{raw}__contains": field.PLAIN_FRAGMENT})
            continue
        q |= Q(**{f"{raw}__isnull": False}) & ~Q(**{raw: ""}) & ~Q(**{f"{raw}_prefix": PREFIX})
    return q


def _annotated(model, fields):
    annotations = {}
    for field in fields:
        annotations[_raw(field)] = Cast(field.attname, output_field=models.TextField())
        annotations[f"{_raw(field)}_prefix"] = Substr(
            Cast(field.attname, output_field=models.TextField()),
            1,
            len(PREFIX),
            output_field=models.TextField(),
        )
    return model._base_manager.annotate(**annotations)


def _converted(field, member_id, raw) -> str | None:
    """The column's new value (sealed, or the keyed token), None when it is done."""
    if isinstance(field, KeyedTokenField):
        return field.token_of(member_id, raw) if field.is_plain(raw) else None
    if raw in (None, "") or raw.startswith(PREFIX):
        return None
    return seal(member_id, field.seal_context, _plaintext(field, raw))


def _plaintext(field: SealedTextField, raw: str) -> str:
    """What the column means, as the field seals it: JSON re-encoded; a legacy Fernet
    token under the app key opened first."""
    if isinstance(field, SealedJSONField):
        return field._encode(json.loads(raw))
    if raw.startswith(_LEGACY_FERNET):
        try:
            return legacy_decrypt(raw)
        except ContentUnreadable:
            return raw  # text that only looks like a token
    return raw


class _Unguarded:
    """Lift an append-only table's guard inside the batch's transaction (a revision or a
    turn is rewritten here only to seal it): the triggers come back before commit."""

    def __init__(self, model) -> None:
        self.model = model
        self.guarded = model in append_only_models()

    def _guard(self, enabled: bool) -> None:
        if not self.guarded:
            return
        if connection.vendor == "postgresql":
            switch = "ENABLE" if enabled else "DISABLE"
            with connection.cursor() as cursor:
                cursor.execute(f'ALTER TABLE "{self.model._meta.db_table}" {switch} TRIGGER USER')
        else:
            sqlite_set_triggers([self.model], enabled=enabled)

    def __enter__(self):
        self._guard(enabled=False)
        return self

    def __exit__(self, *exc):
        self._guard(enabled=True)
        return False


class Command(BaseCommand):
    help = (
        "Encrypt in place a database written before encryption at rest. For every model "
        "with sealed fields (SealedTextField / SealedJSONField), rows whose sealed columns "
        "still hold plain text (or a Fernet token under the old app-wide key) are sealed "
        "under their member's data key, and plain values in keyed-token columns (the "
        "conflict key) become the member's tokens, a batch per transaction, in primary-key "
        "order; then "
        "every member's recall index is re-keyed (stems replaced by keyed tokens). "
        "Resumable: stop it anywhere and run it again — sealed rows and re-keyed entries are "
        "skipped, so a second run over a done database changes nothing. Safe while Iris "
        "serves (unsealed values still read meanwhile; rows are locked per batch). On "
        "PostgreSQL run it as the role that owns the tables (the migrating role): sealing a "
        "revision or a conversation turn rewrites an append-only row. --dry-run counts what "
        "remains and changes nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--dry-run", action="store_true", help="Count the rows left to seal; change nothing."
        )
        parser.add_argument(
            "--batch-size", type=int, default=500, help="Rows per transaction (default 500)."
        )
        parser.add_argument(
            "--no-progress", action="store_true", help="No progress bar (logs, CI)."
        )
        parser.add_argument(
            "--skip-reindex",
            action="store_true",
            help="Seal content only; do not re-key the recall index.",
        )

    def handle(self, *args, dry_run: bool, batch_size: int, no_progress: bool, **options):
        plan = [
            (model, fields, _annotated(model, fields).filter(_pending(fields)).count())
            for model, fields in sealed_models()
        ]
        for model, fields, left in plan:
            names = ", ".join(f.name for f in fields)
            self.stdout.write(f"{model._meta.label} ({names}): {left} row(s) to seal")
        total = sum(left for _, _, left in plan)
        if dry_run:
            self.stdout.write(f"{total} row(s) to seal; nothing changed (--dry-run)")
            return
        sealed: Counter[str] = Counter()
        with Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            disable=no_progress or total == 0,
            console=None,
        ) as progress:
            for model, fields, left in plan:
                if not left:
                    continue
                task = progress.add_task(f"sealing {model._meta.label}", total=left)
                for done in self._seal_model(model, fields, batch_size):
                    sealed[model._meta.label] += done
                    progress.advance(task, done)
        for label, count in sorted(sealed.items()):
            self.stdout.write(f"sealed {count} row(s) of {label}")
        if sealed:
            audit_event_append(
                action=AuditAction.IRIS_SITE_CONTENT_SEALED,
                policy_id=POLICY_ID,
                actor=Actor.system("keys-encrypt"),
                payload={"sealed_count": sum(sealed.values()), "model_count": len(sealed)},
            )
        if not options["skip_reindex"]:
            self._reindex(no_progress)

    def _seal_model(self, model, fields, batch_size: int):
        """Seal the pending rows of one model, a batch per transaction; yields each
        batch's count. Resumable: the filter skips what is sealed."""
        member_paths = sorted({f.member_field.replace(".", "__") for f in fields})
        last = None
        while True:
            with transaction.atomic(), _Unguarded(model):
                rows = _annotated(model, fields).filter(_pending(fields)).order_by("pk")
                if last is not None:
                    rows = rows.filter(pk__gt=last)
                batch = list(
                    rows.select_for_update().values(
                        "pk", *member_paths, *(_raw(f) for f in fields)
                    )[:batch_size]
                )
                if not batch:
                    return
                for row in batch:
                    changes = {}
                    for field in fields:
                        member_id = row[field.member_field.replace(".", "__")]
                        value = _converted(field, member_id, row[_raw(field)])
                        if value is not None:
                            changes[field.attname] = value
                    if changes:
                        model._base_manager.filter(pk=row["pk"]).update(**changes)
                last = batch[-1]["pk"]
            yield len(batch)

    def _reindex(self, no_progress: bool) -> None:
        try:
            rekey = import_string(REINDEX)
        except ImportError:
            self.stderr.write(f"no recall re-index ({REINDEX} not found): index left as is")
            return
        member_ids: set = set()
        for model, fields in sealed_models():
            for path in {f.member_field.replace(".", "__") for f in fields}:
                member_ids.update(
                    model._base_manager.order_by().values_list(path, flat=True).distinct()
                )
        member_ids.discard(None)
        rekeyed = 0
        with Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            disable=no_progress or not member_ids,
        ) as progress:
            task = progress.add_task("re-keying recall indexes", total=len(member_ids))
            for member_id in sorted(member_ids, key=str):
                rekeyed += rekey(member_id=member_id)
                progress.advance(task)
        self.stdout.write(
            f"re-keyed the recall index of {len(member_ids)} member(s): {rekeyed} entries"
        )
