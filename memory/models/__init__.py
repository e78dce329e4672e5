from memory.models.capabilities import ServiceClientCapabilities
from memory.models.changes import ChangeEvent
from memory.models.entities import MemoryEntity, MemoryEntryEntity, MemoryRelationship
from memory.models.entries import MemoryEntry, MemoryRevision
from memory.models.fields import conflict_token, conflict_token_read
from memory.models.fingerprints import ForgottenFact, RetiredName
from memory.models.holds import MemoryDeletionHold
from memory.models.member_settings import MemberMemorySettings
from memory.models.notebooks import NotebookClosure
from memory.models.notices import MemoryClearRequest, MemoryNotice, RecallRecord
from memory.models.ranking import MemoryCorpusShard, MemoryStem
from memory.models.retention import RetentionReview
from memory.models.sessions import ConversationTurn, ConversationTurnHold, OffTheRecordSession
from memory.models.terms import MemoryContextAnchor, MemoryEntryTerm

__all__ = [
    "ChangeEvent",
    "ConversationTurn",
    "ConversationTurnHold",
    "ForgottenFact",
    "MemberMemorySettings",
    "MemoryClearRequest",
    "MemoryContextAnchor",
    "MemoryCorpusShard",
    "MemoryDeletionHold",
    "MemoryEntity",
    "MemoryEntry",
    "MemoryEntryEntity",
    "MemoryEntryTerm",
    "MemoryNotice",
    "MemoryRelationship",
    "MemoryRevision",
    "MemoryStem",
    "NotebookClosure",
    "OffTheRecordSession",
    "RecallRecord",
    "RetentionReview",
    "RetiredName",
    "ServiceClientCapabilities",
    "conflict_token",
    "conflict_token_read",
]
