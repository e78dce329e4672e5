"""People and topics re-keyed by the name key (`memory.policy.names`).

Handles were the HMAC of a name folded only in case and spacing (context `...handle.v1`);
they are now the HMAC of its name key (`...handle.v2`), and entity digests are of the key
too. For every person whose name Iris still holds (the entity's encrypted label, the name
the handle was made from), the handle on its entries and its conflict keys move to the new
handle, and the entity to the new digest; a topic's digest moves to its label's key. A
person or topic forgotten before (no label) keeps its old keys: its old handle stays
refused (`0020_retired_names` kept its digest). Two entities the new key joins are left
apart (the first keeps its keys), never merged by a migration. Revisions keep the handle
they were written with (they are append-only history).
"""

import hashlib
import hmac
import unicodedata
import uuid

from django.conf import settings
from django.db import migrations

_V1_CONTEXT = b"iris.memory.actor-handle.v1"


def _v1_handle(member_id, name: str) -> str:
    folded = " ".join(unicodedata.normalize("NFKC", name).casefold().split())
    message = b"\x00".join(
        (_V1_CONTEXT, str(uuid.UUID(str(member_id))).encode("ascii"), folded.encode("utf-8"))
    )
    secret = settings.IRIS_HASH_SECRET.encode()
    return "actor_" + hmac.new(secret, message, hashlib.sha256).hexdigest()[:32]


def _v1_digest(member_id, kind: str, value: str) -> str:
    from iris_site.crypto import keyed_digest

    folded = " ".join(value.casefold().split())
    return keyed_digest(f"memory-entity\x1f{member_id}\x1f{kind}\x1f{folded}", length=64)


def rekey(apps, schema_editor):
    from iris_site.crypto import ContentUnreadable, decrypt
    from memory.entities.derive import entity_digest
    from memory.policy.conflicts import conflict_key
    from memory.policy.handles import actor_handle

    entity_model = apps.get_model("memory", "MemoryEntity")
    entry_model = apps.get_model("memory", "MemoryEntry")
    taken = set(entity_model.objects.values_list("member_id", "kind", "digest"))
    for entity in entity_model.objects.exclude(kind="self").exclude(label="").iterator():
        try:
            label = decrypt(entity.label)
        except ContentUnreadable:
            continue
        member_id = entity.member_id
        if entity.kind == "person":
            old = _v1_handle(member_id, label)
            if entity.digest != _v1_digest(member_id, "person", old):
                continue  # not the name its handle was made from
            try:
                new = actor_handle(
                    secret=settings.IRIS_HASH_SECRET.encode(), member_id=member_id, raw_name=label
                )
            except ValueError:
                continue
            digest = entity_digest(member_id=member_id, kind="person", value=new)
        else:
            new, digest = "", entity_digest(member_id=member_id, kind=entity.kind, value=label)
        if digest == entity.digest or (member_id, entity.kind, digest) in taken:
            continue
        if new:
            for entry in entry_model.objects.filter(member_id=member_id, actor_handle=old):
                entry.actor_handle = new
                entry.conflict_key = conflict_key(
                    category=entry.category,
                    actor_handle=new,
                    subject=None if entry.erased_digest else entry.subject,
                )
                entry.save(update_fields=["actor_handle", "conflict_key"])
        taken.add((member_id, entity.kind, digest))
        entity.digest = digest
        entity.save(update_fields=["digest"])


class Migration(migrations.Migration):
    dependencies = [("memory", "0021_notebook_lifecycle")]

    operations = [migrations.RunPython(rekey, migrations.RunPython.noop)]
