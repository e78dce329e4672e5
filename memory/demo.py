"""Demo memory: a plausible set for each demo member, written through the services.

Each member gets a memory in every scope kind their consents allow (pose needs
`sensitive_data`, which only Ada gave; a sensitive category only where its
`category:<c>` consent was granted), ordinary and sensitive categories, an entry edited
twice, a paused entry, a mention of another person and a few conversation turns. A
member who already has memory is left alone, so re-running the seed changes nothing.

The assistant then recalls each member's profile once, through the recall service as a
real recall is run and recorded (issue 44): the surface was given that memory, so
forgetting one of those entries on /profile/memory/ tells the assistant
(`manage.py changes_tail --consumer assistant`). Only while the member has no recall by
the assistant on record: re-running the seed adds none.
"""

import uuid
from dataclasses import dataclass, field

from consent.selectors import consent_gate_state
from iris_site.audit.enums import ActorType
from iris_site.audit.events import Actor
from iris_site.models import User
from memory.access.capabilities import capabilities_for
from memory.contracts import MemoryWriteRequest
from memory.enums import Origin, ScopeKind, is_sensitive_category
from memory.models import MemoryEntry, RecallRecord
from memory.pauses import memory_pause
from memory.policy.scopes import evaluate_kind_policy
from memory.recall.service import recall_request_build, recall_run
from memory.services import memory_edit, memory_remember
from memory.turns import conversation_turn_append


@dataclass(frozen=True)
class Memory:
    kind: str
    category: str
    subject: str
    body: str
    origin: str = Origin.USER_STATED
    consumer: str | None = None  # None: the member wrote it on their memory page
    scope: dict = field(default_factory=dict)  # the kind's identifiers
    mention: tuple[str, str] | None = None  # (name, relationship note)
    edits: tuple[str, ...] = ()  # later restatements, each a new revision
    paused: bool = False


@dataclass(frozen=True)
class Persona:
    session: str
    memories: tuple[Memory, ...]
    turns: tuple[tuple[str, str], ...]  # (speaker, text)


PERSONAS = {
    "ada@iris.example": Persona(
        session="demo-ada-chat-1",
        memories=(
            Memory(
                ScopeKind.PROFILE,
                "preference",
                "answer length",
                "I prefer short answers in the morning and more detail in the evening.",
                edits=(
                    "I prefer short answers on weekdays and more detail at weekends.",
                    "I prefer short answers on weekdays, and detailed ones whenever I ask.",
                ),
            ),
            Memory(
                ScopeKind.PROFILE,
                "work",
                "job",
                "I work as a structural engineer at a bridge design firm in Rotterdam.",
            ),
            Memory(
                ScopeKind.PROFILE,
                "medical",
                "thyroid medication",
                "I take levothyroxine every morning, half an hour before breakfast.",
            ),
            Memory(
                ScopeKind.PROFILE,
                "mental_health",
                "therapy",
                "I see a therapist on Thursday evenings to work on my anxiety.",
            ),
            Memory(
                ScopeKind.PROFILE,
                "family",
                "Sam's visit",
                "My sister is staying with me for two weeks in June.",
                mention=("Sam", "my sister"),
            ),
            Memory(
                ScopeKind.PROFILE,
                "goal",
                "half marathon",
                "I'm training for the Rotterdam half marathon in September.",
                paused=True,
            ),
            Memory(
                ScopeKind.SESSION,
                "goal",
                "load report deadline",
                "Wants the bridge load report finished before Friday.",
                origin=Origin.MODEL_INFERRED,
                consumer="assistant",
            ),
            Memory(
                ScopeKind.SCENE,
                "spatial",
                "reading nook",
                "I like the reading nook scene with the window on my left.",
                consumer="living-scene",
                scope={"scene_id": "reading-nook", "room_id": "study"},
            ),
            Memory(
                ScopeKind.POSE,
                "preference",
                "seated avatar",
                "Keep my avatar seated at eye level during long conversations.",
                consumer="studio",
                scope={"scene_id": "reading-nook", "pose_id": "seated", "avatar_id": "ada-1"},
            ),
            Memory(
                ScopeKind.NOTEBOOK,
                "goal",
                "chartership exam",
                "I'm studying for the chartered engineer exam in October.",
                consumer="notebook",
                scope={"notebook_id": "nb-ada-chartership"},
            ),
            Memory(
                ScopeKind.CRISIS,
                "mental_health",
                "what helps in a panic",
                "When panic builds up, slow breathing on a count of four helps me most.",
                consumer="psyche",
            ),
            Memory(
                ScopeKind.TENANT,
                "work",
                "data literacy course",
                "I finished module 3 (statistics basics) of the data literacy course.",
                consumer="metis",
            ),
            Memory(
                ScopeKind.OPERATOR_COPILOT,
                "other",
                "export question",
                "Asked support twice how to export notebook pages; pointed to the export page.",
                origin=Origin.OPERATOR_COPILOT,
                consumer="support",
            ),
        ),
        turns=(
            ("member", "Can you help me plan the bridge load report?"),
            ("assistant", "Of course. What is due first?"),
            ("member", "The load tables by Wednesday, and the full report before Friday."),
            ("assistant", "Let's block two hours each morning for it."),
        ),
    ),
    "ben@iris.example": Persona(
        session="demo-ben-chat-1",
        memories=(
            Memory(
                ScopeKind.PROFILE,
                "preference",
                "cooking time",
                "I like recipes that take under thirty minutes.",
                edits=(
                    "I like recipes that take under twenty minutes on weeknights.",
                    "I like weeknight recipes under twenty minutes, with one pan if possible.",
                ),
            ),
            Memory(
                ScopeKind.PROFILE,
                "work",
                "teaching",
                "I teach history to fourteen-year-olds at a secondary school.",
            ),
            Memory(
                ScopeKind.PROFILE,
                "relationship",
                "climbing partner",
                "We go bouldering together every Tuesday after work.",
                mention=("Jordan", "my climbing partner"),
            ),
            Memory(
                ScopeKind.PROFILE,
                "preference",
                "podcasts",
                "I listen to history podcasts on my commute.",
                paused=True,
            ),
            Memory(
                ScopeKind.SESSION,
                "commitment",
                "marking",
                "Promised to finish marking the essays by Sunday evening.",
                origin=Origin.MODEL_INFERRED,
                consumer="assistant",
            ),
            Memory(
                ScopeKind.SCENE,
                "spatial",
                "classroom scene",
                "I rehearse lessons in the classroom scene, standing by the whiteboard.",
                consumer="living-scene",
                scope={"scene_id": "classroom", "room_id": "room-12"},
            ),
            Memory(
                ScopeKind.NOTEBOOK,
                "goal",
                "lesson plans",
                "I'm collecting sources on the Hanseatic League for next term.",
                consumer="notebook",
                scope={"notebook_id": "nb-ben-hansa"},
            ),
            Memory(
                ScopeKind.CRISIS,
                "commitment",
                "who to call",
                "When evenings feel heavy, I agreed to call my brother first.",
                consumer="psyche",
            ),
            Memory(
                ScopeKind.TENANT,
                "goal",
                "course progress",
                "I'm halfway through the Northwind course on assessment design.",
                consumer="metis",
            ),
            Memory(
                ScopeKind.OPERATOR_COPILOT,
                "other",
                "login trouble",
                "Locked out after a password change; reset link resent, resolved.",
                origin=Origin.OPERATOR_COPILOT,
                consumer="support",
            ),
        ),
        turns=(
            ("member", "I have forty essays to mark this weekend."),
            ("assistant", "Would it help to split them into batches of ten?"),
            ("member", "Yes, ten on Saturday morning and the rest on Sunday."),
        ),
    ),
    "chloe@iris.example": Persona(
        session="demo-chloe-chat-1",
        memories=(
            Memory(
                ScopeKind.PROFILE,
                "preference",
                "reminders",
                "Send me reminders in the afternoon, never before nine.",
                edits=(
                    "Send me reminders after lunch, never before nine.",
                    "Send me reminders after lunch on weekdays only.",
                ),
            ),
            Memory(
                ScopeKind.PROFILE,
                "work",
                "job",
                "I'm a night-shift nurse on a cardiology ward.",
            ),
            Memory(
                ScopeKind.PROFILE,
                "family",
                "dog sitting",
                "My neighbour walks my dog when I work nights.",
                mention=("Priya", "my neighbour"),
            ),
            Memory(
                ScopeKind.PROFILE,
                "goal",
                "Spanish",
                "I'm learning Spanish before a trip to Valencia next spring.",
                paused=True,
            ),
            Memory(
                ScopeKind.SESSION,
                "goal",
                "sleep schedule",
                "Wants to shift her sleep back after the last night shift of the week.",
                origin=Origin.MODEL_INFERRED,
                consumer="assistant",
            ),
            Memory(
                ScopeKind.SCENE,
                "preference",
                "calm scene",
                "The beach scene at dusk helps me wind down after a shift.",
                consumer="living-scene",
                scope={"scene_id": "beach-dusk", "room_id": "shore"},
            ),
            Memory(
                ScopeKind.NOTEBOOK,
                "goal",
                "certification",
                "I'm preparing for the advanced cardiac life support recertification.",
                consumer="notebook",
                scope={"notebook_id": "nb-chloe-acls"},
            ),
            Memory(
                ScopeKind.CRISIS,
                "commitment",
                "after a hard shift",
                "After a hard shift I said I'd text my friend rather than sit alone with it.",
                consumer="psyche",
            ),
            Memory(
                ScopeKind.TENANT,
                "work",
                "ward training",
                "Completed the Harbor Health medication safety training.",
                consumer="metis",
            ),
            Memory(
                ScopeKind.OPERATOR_COPILOT,
                "other",
                "notification settings",
                "Asked why reminders arrived at night; time zone was unset, now fixed.",
                origin=Origin.OPERATOR_COPILOT,
                consumer="support",
            ),
        ),
        turns=(
            ("member", "My last night shift is on Thursday."),
            ("assistant", "Do you want a plan to get your sleep back on track?"),
            ("member", "Yes, something gentle over the weekend."),
        ),
    ),
}


def _actor(memory: Memory, member: User, clients: dict[str, str], operator: dict) -> Actor:
    if memory.origin == Origin.OPERATOR_COPILOT:
        return Actor(ActorType.OPERATOR, uuid.UUID(operator["id"]), operator["role"])
    if memory.consumer in clients and memory.origin == Origin.MODEL_INFERRED:
        return Actor(ActorType.SERVICE, uuid.UUID(clients[memory.consumer]), memory.consumer)
    return Actor.of(member)


def _scope(memory: Memory, *, session: str, tenant_ids: list[str], operator: dict) -> dict:
    scope = {"kind": memory.kind, **memory.scope}
    if memory.kind in (ScopeKind.SESSION, ScopeKind.SCENE, ScopeKind.POSE):
        scope["session_id"] = session
    if memory.kind == ScopeKind.TENANT:
        scope["tenant_id"] = tenant_ids[0]
    if memory.kind == ScopeKind.OPERATOR_COPILOT:
        scope["operator_id"] = operator["id"]
    return scope


def _allowed(
    memory: Memory, *, active: frozenset[str], opt_outs: frozenset[str], tenant_ids: list[str]
) -> bool:
    """Seed only what the member's consents, opt-outs and memberships allow."""
    if is_sensitive_category(memory.category) and f"category:{memory.category}" not in active:
        return False
    if memory.kind == ScopeKind.TENANT and not tenant_ids:
        return False
    return evaluate_kind_policy(
        memory.kind, active_consent_types=active, opt_outs=opt_outs, consumer=memory.consumer
    ).enabled


# What the demo assistant asks of each member's profile (answer length, work, a person).
DEMO_RECALL_QUERY = "preferences work family"


def _assistant_recall(member: User, clients: dict[str, str]) -> None:
    """The assistant recalls the member's profile once, recorded as any recall is."""
    if RecallRecord.objects.filter(member=member, consumer="assistant").exists():
        return
    request = recall_request_build(
        member_id=member.pk,
        capabilities=capabilities_for("assistant"),
        surface="assistant",
        scope={"kind": ScopeKind.PROFILE},
        query=DEMO_RECALL_QUERY,
    )
    recall_run(
        request=request,
        actor=Actor(ActorType.SERVICE, uuid.UUID(clients["assistant"]), "assistant"),
    )


def seed(data: dict) -> None:
    clients = {c["consumer"]: c["id"] for c in data["service_clients"]}
    operator = next(
        o for o in data["operators"] if o["role"] == "support" and o["tenant_id"] is None
    )
    for row in data["members"]:
        persona = PERSONAS.get(row["email"])
        member = User.objects.get(pk=row["id"])
        if persona is None:
            continue
        if MemoryEntry.objects.filter(member=member).exists():
            _assistant_recall(member, clients)
            continue
        consents, opt_outs = consent_gate_state(member_id=member.pk)
        active = consents.types
        for memory in persona.memories:
            if not _allowed(memory, active=active, opt_outs=opt_outs, tenant_ids=row["tenant_ids"]):
                continue
            write = MemoryWriteRequest.model_validate(
                {
                    "scope": _scope(
                        memory,
                        session=persona.session,
                        tenant_ids=row["tenant_ids"],
                        operator=operator,
                    ),
                    "category": memory.category,
                    "subject": memory.subject,
                    "body": memory.body,
                    "origin": memory.origin,
                    "multi_actor": {
                        "actor_name": memory.mention[0],
                        "relationship_note": memory.mention[1],
                    }
                    if memory.mention
                    else None,
                },
                context={"user_id": member.pk},
            )
            entry = memory_remember(
                member=member,
                write=write,
                actor=_actor(memory, member, clients, operator),
                consumer=memory.consumer,
            ).entry
            for body in memory.edits:
                entry = memory_edit(entry=entry, actor=Actor.of(member), body=body)
            if memory.paused:
                memory_pause(entry=entry, actor=Actor.of(member))
        for speaker, text in persona.turns:
            conversation_turn_append(
                member=member,
                session_id=persona.session,
                speaker=speaker,
                text=text,
                consumer="assistant",
                actor=Actor(ActorType.SERVICE, uuid.UUID(clients["assistant"]), "assistant"),
            )
        _assistant_recall(member, clients)
