from memory.models.capabilities import ServiceClientCapabilities
from memory.models.entries import MemoryEntry, MemoryRevision
from memory.models.fingerprints import ForgottenFact, RetiredActorHandle
from memory.models.holds import MemoryDeletionHold
from memory.models.member_settings import MemberMemorySettings
from memory.models.notices import MemoryClearRequest, MemoryNotice, RecallRecord
from memory.models.ranking import MemoryCorpusStats
from memory.models.retention import RetentionReview
from memory.models.sessions import ConversationTurn, OffTheRecordSession
from memory.models.terms import MemoryEntryTerm

__all__ = [
    "ConversationTurn",
    "ForgottenFact",
    "MemberMemorySettings",
    "MemoryClearRequest",
    "MemoryCorpusStats",
    "MemoryDeletionHold",
    "MemoryEntry",
    "MemoryEntryTerm",
    "MemoryNotice",
    "MemoryRevision",
    "OffTheRecordSession",
    "RecallRecord",
    "RetentionReview",
    "RetiredActorHandle",
    "ServiceClientCapabilities",
]
