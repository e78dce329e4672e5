"""Demo continuation tokens: the first demo member was listening to a Tara chapter on a
laptop and reading a Nisaba edition on a phone, so the continuation cards show something.

Fixed token ids, keys and times make re-running a no-op: a slot already holding its demo
token is left as it is."""

import uuid

from continuity.contracts import token_parse
from continuity.models import ContinuationToken
from continuity.services import continuation_token_write
from iris_site.audit.events import Actor
from iris_site.models import User

DEMO_NAMESPACE = uuid.UUID("6f1d3c2e-9a7b-4c51-8e0d-2b4a6c8e0f13")
TOKENS = [
    {
        "key": "demo-tara-chapter-4",
        "scope": "session:{member}:tara-demo",
        "device_id": "laptop-1",
        "surface": "tara",
        "session_id": "tara-demo",
        "anchor_id": "chapter-4",
        "cursor": "00:14:32",
        "posture": "listening",
        "last_updated_at": "2026-11-29T20:14:32Z",
    },
    {
        "key": "demo-nisaba-edition",
        "scope": "notebook:{member}:nisaba-demo",
        "device_id": "phone-1",
        "surface": "nisaba",
        "session_id": None,
        "anchor_id": "edition-odyssey",
        "cursor": "page-112",
        "posture": "reading",
        "last_updated_at": "2026-11-29T21:40:00Z",
    },
]


def seed(data: dict) -> None:
    member = User.objects.get(pk=data["members"][0]["id"])
    for row in TOKENS:
        contract = token_parse(
            {
                "token_id": str(uuid.uuid5(DEMO_NAMESPACE, f"{member.pk}:{row['key']}")),
                "user_id": str(member.pk),
                "scope_key": row["scope"].format(member=member.pk),
                "device_id": row["device_id"],
                "surface_context": {
                    "surface": row["surface"],
                    "session_id": row["session_id"],
                    "tenant_id": None,
                },
                "anchor_ref": {
                    "surface": row["surface"],
                    "anchor_id": row["anchor_id"],
                    "cursor": row["cursor"],
                },
                "posture": row["posture"],
                "sensitive_categories": [],
                "cross_device_consent_id": None,
                "idempotency_key": row["key"],
                "last_updated_at": row["last_updated_at"],
            }
        )
        if ContinuationToken.objects.filter(member=member, token_id=contract.token_id).exists():
            continue
        continuation_token_write(
            member=member,
            contract=contract,
            consumer=row["surface"],
            actor=Actor.system("seed-demo"),
        )
