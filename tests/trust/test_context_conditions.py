"""Issue 42, "`safety` and `crisis` contexts are master keys", over real HTTP and MCP.

A consumer granted either context used to open 18 of the 19 sensitive categories by
declaring it: tara received a member's immigration status with `context: safety`; shell
and psyche received mental-health memory through recall, the bundle, short-term reads
and MCP. Now the claim holds only on the crisis path (a crisis frame in a safety-critical
context, `memory.access.gate.applied_context`); anywhere else the read is `general`: the
same answer as a general read, never a 500, never a leak. Run on PostgreSQL and SQLite.
"""

import pytest

from iris_site.services import token_issue
from tests.conftest import http_request
from tests.interfaces.test_mcp import mcp, mcp_url  # noqa: F401 - the MCP server fixture
from tests.iris_site.factories import ServiceClientFactory
from tests.memory.factories import consenting_member, remember

pytestmark = pytest.mark.django_db(transaction=True)

OUTSIDE_CONTEXT = "sensitive-category-outside-relevant-context"
STATUS = "on a pending asylum application"
DIAGNOSIS = "diagnosed with generalised anxiety"
PLAN = "safety plan: call Sam, then the crisis line"


def service(consumer: str) -> str:
    return token_issue(owner=ServiceClientFactory(consumer=consumer))[1]


def recall(live_server, member, token: str, **body):
    payload = {"surface": "shell", "scope": {"kind": "profile"}, "query": "", **body}
    return http_request(
        f"{live_server.url}/api/v1/members/{member.pk}/recall/",
        method="POST",
        token=token,
        body=payload,
    )


def bodies(response) -> list[str]:
    assert response.status == 200, response.body
    return [entry["body"] for entry in response.body["entries"]]


@pytest.mark.parametrize("context", ["safety", "crisis"])
def test_tara_and_shell_get_the_general_answer_for_a_safety_or_crisis_claim(live_server, context):
    # given consented immigration and mental-health memory
    member = consenting_member("category:immigration_status", "category:mental_health")
    remember(member, category="immigration_status", subject="asylum", body=STATUS)
    remember(member, category="mental_health", subject="anxiety", body=DIAGNOSIS)
    remember(member, subject="coffee", body="I take my coffee black")
    for consumer in ("tara", "shell", "psyche"):
        if consumer == "tara" and context == "crisis":
            continue  # tara may not claim `crisis` at all (403, tested elsewhere)
        token = service(consumer)
        # when it claims the context without a crisis frame
        claimed = recall(live_server, member, token, context=context)
        general = recall(live_server, member, token, context="general")
        # then the answer is the general one, the sensitive entries counted as outside
        assert bodies(claimed) == bodies(general) == ["I take my coffee black"]
        counts = claimed.body["audit_envelope"]["suppression_counts"]
        assert counts[OUTSIDE_CONTEXT] == 2


def test_only_a_real_crisis_frame_opens_the_safety_plan_and_nothing_else(live_server):
    # given a safety plan beside other consented sensitive memory
    member = consenting_member(
        "category:safety", "category:mental_health", "category:immigration_status"
    )
    remember(member, category="safety", subject="plan", body=PLAN)
    remember(member, category="mental_health", subject="anxiety", body=DIAGNOSIS)
    remember(member, category="immigration_status", subject="asylum", body=STATUS)
    token = service("psyche")
    # when psyche claims `crisis` with one flag of two, the claim is general
    half = recall(live_server, member, token, context="crisis", safety_critical_context=True)
    assert bodies(half) == []
    # and on the crisis path only the safety plan surfaces
    frame = recall(
        live_server,
        member,
        token,
        context="crisis",
        crisis_frame=True,
        safety_critical_context=True,
        scope={"kind": "crisis"},
    )
    assert bodies(frame) == [PLAN]
    assert frame.body["audit_envelope"]["suppression_counts"]["crisis-frame"] >= 2


def test_the_bundle_and_short_term_reads_apply_the_same_rule(live_server):
    # given a mental-health note in working memory and mental-health memory
    member = consenting_member("category:mental_health")
    remember(member, category="mental_health", subject="anxiety", body=DIAGNOSIS)
    shell = service("shell")
    written = http_request(
        f"{live_server.url}/api/v1/members/{member.pk}/short-term/",
        method="POST",
        token=service("tara"),
        body={
            "scope_kind": "user_session",
            "scope_id": "s-1",
            "category": "mental_health",
            "content": "panic attacks before exams",
        },
    )
    assert written.status == 201, written.body
    # when shell claims `safety` on the bundle and on a short-term read
    bundle = http_request(
        f"{live_server.url}/api/v1/members/{member.pk}/context-bundle/",
        method="POST",
        token=shell,
        body={"scope_id": "s-1", "query": "anxiety exams", "context": "safety"},
    )
    listed = http_request(
        f"{live_server.url}/api/v1/members/{member.pk}/short-term/?scope_id=s-1&context=safety",
        token=shell,
    )
    # then neither returns the mental-health content
    assert bundle.status == 200, bundle.body
    assert listed.status == 200, listed.body
    for answer in (bundle.body, listed.body):
        assert DIAGNOSIS not in str(answer)
        assert "panic attacks" not in str(answer)


def test_mcp_recall_applies_the_same_rule(live_server, mcp_url):  # noqa: F811
    # given consented mental-health memory
    member = consenting_member("category:mental_health")
    remember(member, category="mental_health", subject="anxiety", body=DIAGNOSIS)
    token = service("psyche")

    async def calls(session):
        return await session.call_tool(
            "recall",
            {
                "member_id": str(member.pk),
                "surface": "shell",
                "scope": {"kind": "profile"},
                "query": "anxiety",
                "context": "safety",
            },
        )

    # when psyche claims `safety` over MCP without a crisis frame
    recalled = mcp(mcp_url, token, calls)
    # then nothing sensitive comes back, and it is counted
    assert not recalled.is_error, recalled
    assert recalled.structured_content["entries"] == []
    counts = recalled.structured_content["audit_envelope"]["suppression_counts"]
    assert counts == {OUTSIDE_CONTEXT: 1}
