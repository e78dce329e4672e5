"""Issue 41 on the MCP door: after the member forgets a person, an assistant using the
official MCP SDK client gets what REST gets — nothing that mentions them from recall or
the context bundle, and `actor-retired` for a write that would bring them back, by tag,
subject, body or short-term note, in any spelling a reader could not tell apart."""

import pytest

from iris_site.audit.events import Actor
from iris_site.services import token_issue
from memory.entities.services import entity_retire
from memory.enums import EntityKind
from memory.models import MemoryEntity
from tests.interfaces.test_mcp import mcp, mcp_url  # noqa: F401 (the fixture)
from tests.iris_site.factories import ServiceClientFactory
from tests.memory.factories import consenting_member, remember

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_forgotten_person_is_gone_and_refused_over_mcp(live_server, mcp_url):  # noqa: F811
    _, token = token_issue(owner=ServiceClientFactory(consumer="assistant"))
    member = consenting_member()
    member_id = str(member.pk)
    remember(
        member,
        body="Lent me the blue kayak",
        multi_actor={"actor_name": "Quorvex7", "relationship_note": "old friend"},
    )
    remember(member, body="Met Quorvex 7 at the harbour")
    remember(member, body="Prefers window seats on trains")
    [person] = MemoryEntity.objects.filter(member=member, kind=EntityKind.PERSON)
    entity_retire(member=member, entity_id=person.pk, actor=Actor.of(member))

    async def calls(session):
        recall = await session.call_tool(
            "recall",
            {
                "member_id": member_id,
                "surface": "assistant",
                "scope": {"kind": "profile"},
                "query": "harbour kayak trains Quorvex",
            },
        )
        refused = [
            await session.call_tool(
                "remember",
                {
                    "member_id": member_id,
                    "scope": {"kind": "session", "session_id": "s-1"},
                    "category": "relationship",
                    "origin": "model-inferred",
                    "body": f"{name} is back in town",
                },
            )
            for name in ("Quorvex7", "Quorvex 7.", "Qu\u043ervex7")
        ]
        note = await session.call_tool(
            "write_short_term",
            {
                "member_id": member_id,
                "scope_kind": "user_session",
                "scope_id": "s-1",
                "category": "preference",
                "content": "Call QUORVEX 7 about the boat",
            },
        )
        return recall, refused, note

    recall, refused, note = mcp(mcp_url, token, calls)
    assert not recall.is_error, recall.structured_content
    bodies = [e["body"] for e in recall.structured_content["entries"]]
    assert bodies == ["Prefers window seats on trains"]
    for response in (*refused, note):
        assert response.is_error
        assert response.structured_content["error"]["code"] == "actor-retired"
