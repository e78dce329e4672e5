from memory.models.entries import MemoryEntry, MemoryRevision
from memory.models.notices import MemoryClearRequest, MemoryNotice, RecallRecord
from memory.models.sessions import ConversationTurn, OffTheRecordSession

__all__ = [
    "ConversationTurn",
    "MemoryClearRequest",
    "MemoryEntry",
    "MemoryNotice",
    "MemoryRevision",
    "OffTheRecordSession",
    "RecallRecord",
]
