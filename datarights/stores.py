"""The data-rights app's content store: the member's export files (registered from
`DatarightsConfig.ready()` in the registry of `memory.forgetting.stores`)."""

import html
import io
import zipfile
from pathlib import Path

from django.utils import timezone

from datarights.crypto import DecryptionFailed
from datarights.enums import TrailEvent
from datarights.events import trail_append
from datarights.export import MEMBER_SEALED, PLAIN_ZIP, artifact_format, member_dir, open_zip
from datarights.selectors import datarights_member_artifacts
from iris_site.audit.events import Actor
from memory.forgetting.stores import ContentStore, Erasure, ExtentKind

EXPORT_FILES = "export-files"


def _lines_have_residue(lines, erasure: Erasure, *, ids: bool) -> bool:
    matcher = erasure.matcher
    return any(
        erasure.holds(line) or matcher.quoted_in(line) or (ids and matcher.id_in(line))
        for line in lines
    )


def _zip_has_residue(path: Path, erasure: Erasure, *, ids: bool) -> bool:
    """An export zip (plain, or sealed under the member's key: opened with it):
    data.json line by line as it is, summary.html with its HTML escapes undone (its
    texts are a subset of data.json's, checked anyway); a zip that does not open (its
    key shredded, the file altered) counts as holding the erased content."""
    try:
        with open_zip(path) as archive:
            for name in archive.namelist():
                with archive.open(name) as member:
                    lines = io.TextIOWrapper(member, encoding="utf-8", errors="replace")
                    if name.endswith(".html"):
                        lines = (html.unescape(line) for line in lines)
                    if _lines_have_residue(lines, erasure, ids=ids):
                        return True
    except (zipfile.BadZipFile, OSError, DecryptionFailed):
        return True
    return False


def _file_has_residue(path: Path, erasure: Erasure, *, ids: bool) -> bool:
    """Whether the file holds an erased text (or, with `ids`, an erased id: a purge
    leaves no export naming what it removed; a forget's ids may stay, as in the audit
    chain an export carries). A file sealed under the member's key is opened with it;
    one sealed with the member's passphrase, or a partial file, cannot be read here, so
    it cannot be cleared: it counts as holding the erased content."""
    if path.suffix in (".zip", ".sealed"):
        if artifact_format(path) not in (PLAIN_ZIP, MEMBER_SEALED):
            return True
        return _zip_has_residue(path, erasure, ids=ids)
    if path.suffix != ".json":
        return True
    with open(path, encoding="utf-8", errors="replace") as handle:
        return _lines_have_residue(handle, erasure, ids=ids)


def _holding(erasure: Erasure) -> list[Path]:
    directory = member_dir(erasure.member_id)
    if not directory.exists():
        return []
    return [
        path
        for path in sorted(directory.iterdir())
        if path.is_file() and _file_has_residue(path, erasure, ids=erasure.purge)
    ]


def _erase(erasure: Erasure) -> int:
    """Remove every export file that holds (or may hold) the erased content, and record
    on each export request that its file is gone."""
    doomed = _holding(erasure)
    if not doomed:
        return 0
    now = timezone.now()
    names = {path.name for path in doomed}
    for export in datarights_member_artifacts(member_id=erasure.member_id).select_for_update():
        if export.artifact_name not in names:
            continue
        export.artifact_removed_at = now
        export.updated_at = now
        export.save(update_fields=["artifact_removed_at", "updated_at"])
        trail_append(
            request=export,
            event=TrailEvent.ARTIFACT_REMOVED,
            actor=Actor.system(erasure.reason),
            detail={"reason": "erased", "erasure_reason": erasure.reason},
            now=now,
        )
    for path in doomed:
        path.unlink(missing_ok=True)
    return len(doomed)


def _residue(erasure: Erasure) -> int:
    return len(_holding(erasure))


EXPORT_FILES_STORE = ContentStore(
    name=EXPORT_FILES,
    erase=_erase,
    residue=_residue,
    order=30,
    encrypted=True,
    extents={
        ExtentKind.FACT: "deletes every export file holding a wording (a purge: or an id)",
        ExtentKind.PERSON: "deletes every export file mentioning one of the person's names",
        ExtentKind.CONVERSATION: "deletes every export file holding the conversation's text",
        ExtentKind.SCOPE: "deletes every export file holding the scope's erased text",
        ExtentKind.CATEGORY: "deletes every export file holding the category's erased text",
        ExtentKind.EVERYTHING: "deletes every export file holding the member's erased text",
    },
)
