"""The benchmark's recall requests over a synthetic member (`memory.bench.synthetic`):
varied queries of the `assistant` consumer, and how one becomes a recall request."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from iris_site.enums import Consumer
from iris_site.models import User
from memory.access.capabilities import capabilities_for
from memory.bench.synthetic import Synthetic
from memory.enums import ScopeKind
from memory.recall.service import recall_request_build

QUERY_TEMPLATES = (
    "what does my {relation} {name} like to eat",
    "when is {name}'s birthday",
    "{food}",
    "do I like {food}",
    "trip to {place}",
    "how did I feel after the {event}",
    "what did {name} recommend about {topic}",
    "where did I leave my {thing}",
    "{hobby} plans with {name}",
    "what do I know about {topic}",
    "who is {name}",
    "remind me what I said about {topic} and {topic2}",
    "my {relation}'s job",
    "what happened in {place} during the {event}",
)


@dataclass(frozen=True)
class BenchQuery:
    surface: str
    scope: dict[str, str]
    query: str
    context: str = "general"
    crisis_frame: bool = False
    safety_critical_context: bool = False

    def payload(self) -> dict[str, Any]:
        return {
            "surface": self.surface,
            "scope": self.scope,
            "query": self.query,
            "context": self.context,
            "crisis_frame": self.crisis_frame,
            "safety_critical_context": self.safety_critical_context,
        }


def bench_queries(synthetic: Synthetic, count: int, *, seed: int) -> list[BenchQuery]:
    """Varied requests of the `assistant` consumer, within its capabilities: mostly its
    own surface, a quarter the shell's, about a tenth without a query; profile, session,
    scene and notebook scopes; a few in a health or financial context and one crisis
    frame. (Before the read gate a sixth of them claimed the notebook surface with a
    budget of 25, which the assistant may not: they are the assistant's own now.)"""
    rng = random.Random(seed)  # noqa: S311 - deterministic test data, not secrets
    vocabulary = synthetic.vocabulary
    queries = []
    for index in range(count):
        surface = "shell" if rng.random() < 0.25 else "assistant"
        text = "" if rng.random() < 0.1 else vocabulary.fill(rng, rng.choice(QUERY_TEMPLATES))
        scope: dict[str, str] = {"kind": ScopeKind.PROFILE}
        roll = rng.random()
        if roll < 0.15 and synthetic.sessions:
            scope = {"kind": ScopeKind.SESSION, "session_id": rng.choice(synthetic.sessions)}
        elif roll < 0.2 and synthetic.scenes:
            session, scene, room = rng.choice(synthetic.scenes)
            scope = {"kind": ScopeKind.SCENE, "session_id": session, "scene_id": scene}
            scope["room_id"] = room
        elif roll < 0.28 and synthetic.notebooks:
            scope = {"kind": ScopeKind.NOTEBOOK, "notebook_id": rng.choice(synthetic.notebooks)}
        context = rng.choice(["general"] * 8 + ["health", "financial"])
        if index == count // 2:
            queries.append(
                BenchQuery(
                    "assistant",
                    {"kind": ScopeKind.CRISIS},
                    "",
                    context="crisis",
                    crisis_frame=True,
                    safety_critical_context=True,
                )
            )
            continue
        queries.append(BenchQuery(surface, scope, text, context=context))
    return queries


def request_builder(member: User) -> Callable[[BenchQuery, datetime], Any]:
    """A bench query as the `assistant` consumer's recall request for ``member``: the
    HTTP part's client has exactly these capabilities (the table's row, no narrowing)."""
    capabilities = capabilities_for(Consumer.ASSISTANT)

    def build(q: BenchQuery, now: datetime):
        return recall_request_build(
            member_id=member.pk,
            capabilities=capabilities,
            surface=q.surface,
            scope=q.scope,
            query=q.query,
            context=q.context,
            crisis_frame=q.crisis_frame,
            safety_critical_context=q.safety_critical_context,
            now=now,
        )

    return build
