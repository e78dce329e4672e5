"""What the API docs say beyond the views: the tags operations are grouped in, each
operation's summary, and request examples that work as written against `make run`'s demo
data (`tests/iris_site/test_api_docs.py` sends every one of them to a live server).

A drf-spectacular post-processing hook, so the views keep one description each (their
docstrings) and the grouping lives in one place.
"""

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

ACCESS_GUIDE = """
## Getting a token

Every call carries `Authorization: Bearer <token>`. Tokens are shown once and stored
hashed; revoking one ends it at once.

- **Assistant surfaces** (service clients): a platform operator opens *Admin → Service
  clients*, picks the surface's client (one per consumer: `assistant`, `tara`, `veritas`,
  …) and runs **Issue a token**; the token is shown once on the next page. Its
  capabilities (which surfaces, contexts and scope kinds it may use) come from the
  consumer and can only be narrowed.
- **Members** sign in to the browser pages; the API accepts their session too. Nobody
  else can mint a token in a member's name.
- **Platform operators** issue their own from *Admin → Users* (select yourself, **Issue a
  token**); a person's token is never issued to anyone but that person.
- **With `make run`**: `.venv/bin/python manage.py seed_demo --json` prints tokens for
  every demo member, operator and service client, and the ids the examples need.

## Trying the examples

Each request example is a numbered step of one story, sent with `make run`'s demo data
and the token of whoever it names (`service:assistant` is the `assistant` service
client's). Send them in order: replace `{member_id}` with the `id` of
`ada@iris.example`, and a value in braces such as `{turn_id}` with what an earlier step's
answer says it is. The surface appends a turn Ada spoke, remembers it in her profile as
her own word quoting that turn, and recall gives it back; each example says what it
answers.

Errors share one envelope: `{"error": {"code", "message", "fields"}}`.
"""

# (tag, what it holds), in the order the docs show them: the assistant's calls first.
TAGS: tuple[tuple[str, str], ...] = (
    ("recall", "What an assistant may say back: recall for a member, and the recall log."),
    (
        "memories",
        "Remember on a member's behalf, conversation turns, and the member's own memories: "
        "list, edit, pause, forget, full clear, notices, off the record.",
    ),
    (
        "short-term and bundle",
        "Working memory with a time to live, its consolidation, and the context bundle.",
    ),
    ("continuity", "Continuation tokens: pick up on another device where the member left off."),
    (
        "consent",
        "The member's consent ledger: grants, withdrawals and its verification; the "
        "opt-outs that turn kinds of memory off, and the scope policies they shape.",
    ),
    ("data rights", "Export, access and deletion requests, and the operators' queue."),
    ("inspection", "Gated operator access to a member's memory, and the member's notices."),
    ("operator", "Audit events, their verification, and the memory-hierarchy views."),
)

_TAG_RULES: tuple[tuple[str, str], ...] = (
    (r"/recall/$|/me/recalls/", "recall"),
    (r"/short-term/|/context-bundle/", "short-term and bundle"),
    (r"/continuation-tokens/", "continuity"),
    (r"/me/consents/|/me/opt-outs/|/scope-policies/", "consent"),
    (r"/data-rights/", "data rights"),
    (r"/inspection", "inspection"),
    (r"/operator/", "operator"),
    (r"/api/v1/", "memories"),
)


# The documented requests, in the order a reader sends them with `seed_demo --json`'s ids
# and tokens (ACCESS_GUIDE, "Trying the examples"). `{name}` in a path or body is a value:
# `{member_id}` is DEMO_MEMBER's `id`, EXAMPLE_PATH_VALUES are fixed, and an earlier
# example's `keeps` names a value of its response (`{turn_id}`: the turn step 1 appended,
# which the remember example quotes).
@dataclass(frozen=True, slots=True)
class Example:
    operation_id: str
    # Who sends it: `member:<email>`, `service:<consumer>` or `operator:<role>` of the demo.
    who: str
    body: dict
    status: int
    # What it answers besides the status: a dotted path in the response body (`*` is any
    # item of a list) and the value found there.
    answers: Mapping[str, object]
    # Values of the response the examples after it use: {name: dotted path}.
    keeps: Mapping[str, str] = field(default_factory=dict)


DEMO_MEMBER = "ada@iris.example"
TEA = "Prefers green tea in the afternoon"

EXAMPLES: tuple[Example, ...] = (
    Example(
        "append_turn",
        "service:assistant",
        {"speaker": "member", "text": "I prefer green tea in the afternoon."},
        201,
        {"session_id": "s-1", "speaker": "member"},
        keeps={"turn_id": "id"},
    ),
    Example(
        "remember",
        "service:assistant",
        {
            "scope": {"kind": "profile"},
            "category": "preference",
            "subject": "tea",
            "body": TEA,
            "origin": "user-stated",
            "provenance": [
                {"kind": "session-turn", "ref": "{turn_id}", "captured_at": "2026-01-05T15:00:00Z"}
            ],
        },
        201,
        {"scope.kind": "profile", "origin": "user-stated", "body": TEA},
        keeps={"memory_id": "id"},
    ),
    Example(
        "recall",
        "service:assistant",
        {
            "surface": "assistant",
            "scope": {"kind": "profile"},
            "query": "what tea do I like",
            "context": "general",
        },
        200,
        {"entries.*.id": "{memory_id}", "entries.*.body": TEA},
    ),
    Example(
        "write_short_term",
        "service:assistant",
        {
            "scope_kind": "user_session",
            "scope_id": "s-1",
            "category": "preference",
            "content": "prefers morning walks",
        },
        201,
        {"scope_id": "s-1", "content": "prefers morning walks"},
        keeps={"stm_id": "id"},
    ),
    Example(
        "get_context_bundle",
        "service:assistant",
        {"scope_id": "s-1", "query": "tea in the afternoon", "include_episodic": True},
        200,
        {"stm.*.id": "{stm_id}", "ltm.entries.*.id": "{memory_id}"},
    ),
    Example(
        "v1_me_memories_create",
        "member:ben@iris.example",
        {
            "scope": {"kind": "profile"},
            "category": "preference",
            "subject": "coffee",
            "body": "I take my coffee black",
        },
        201,
        {"scope.kind": "profile", "origin": "user-stated", "body": "I take my coffee black"},
    ),
    Example(
        "v1_me_off_the_record_update",
        "member:ben@iris.example",
        {"active": False},
        200,
        {"active": False},
    ),
    Example(
        "v1_me_consents_events_create",
        "member:ben@iris.example",
        {
            "consent_type": "category:financial",
            "kind": "grant",
            "legal_basis": "consent",
            "capture_method": "settings-toggle",
            "terms_version": "2026-11",
        },
        201,
        {"status": "granted", "consent_type": "category:financial"},
    ),
    Example(
        "v1_me_data_rights_create",
        "member:ben@iris.example",
        {"kind": "access", "payload": {"include_operator_actions": True}},
        201,
        {"kind": "access", "status": "submitted"},
    ),
    Example(
        "v1_operator_memory_hierarchy_ltm_create",
        "operator:admin",
        {"justification": "Ticket 1042: the member asked what is kept about their tea"},
        200,
        {"lookup": "entry-id", "entries.*.id": "{memory_id}", "entries.*.scope_kind": "profile"},
    ),
    Example(
        "v1_operator_memory_hierarchy_stm_create",
        "operator:admin",
        {"justification": "Ticket 1043: checking a stuck short-term row"},
        200,
        {"*.id": "{stm_id}", "*.written_by": "assistant"},
    ),
)

# Path values of the examples' URLs besides `{member_id}` and the kept ones.
EXAMPLE_PATH_VALUES = {"session_id": "s-1", "scope_id": "s-1", "entity_id": "{memory_id}"}

STEPS = {example.operation_id: (number, example) for number, example in enumerate(EXAMPLES, 1)}


def _documented(number: int, example: Example) -> dict:
    """The example as the docs show it: the request, who sends it, and what it answers."""
    facts = "".join(
        f"; `{path}` {'includes' if '*' in path else 'is'} `{json.dumps(value)}`"
        for path, value in example.answers.items()
    )
    kept = "".join(
        f" Later steps use its `{path}` as `{{{name}}}`." for name, path in example.keeps.items()
    )
    return {
        "summary": f"Step {number} of the demo, as {example.who}; answers {example.status}",
        "description": f"Answers {example.status}{facts}.{kept}",
        "value": example.body,
    }


def tag_of(path: str) -> str:
    for pattern, tag in _TAG_RULES:
        if re.search(pattern, path):
            return tag
    return "operator"


def summary_of(operation: dict) -> str:
    """The description's first sentence, as the one-line summary the docs list."""
    text = " ".join((operation.get("description") or "").split())
    return re.split(r"(?<=[.:;])\s", text, maxsplit=1)[0].rstrip(".:;")


def document_operations(result, generator, request, public):
    """drf-spectacular post-processing hook: tags, summaries, examples, the token guide."""
    result["tags"] = [{"name": name, "description": text} for name, text in TAGS]
    info = result.setdefault("info", {})
    info["description"] = (info.get("description") or "") + "\n" + ACCESS_GUIDE
    for path, item in result.get("paths", {}).items():
        for operation in item.values():
            if not isinstance(operation, dict) or "operationId" not in operation:
                continue
            operation["tags"] = [tag_of(path)]
            operation.setdefault("summary", summary_of(operation))
            step = STEPS.get(operation["operationId"])
            content = operation.get("requestBody", {}).get("content", {})
            if step and "application/json" in content:
                content["application/json"]["examples"] = {"demo": _documented(*step)}
    return result
