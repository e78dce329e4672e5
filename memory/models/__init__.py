from memory.models.entries import MemoryEntry, MemoryRevision
from memory.models.notices import MemoryClearRequest, MemoryNotice, RecallRecord
from memory.models.ranking import MemoryCorpusStats
from memory.models.sessions import ConversationTurn, OffTheRecordSession

__all__ = [
    "ConversationTurn",
    "MemoryClearRequest",
    "MemoryCorpusStats",
    "MemoryEntry",
    "MemoryNotice",
    "MemoryRevision",
    "OffTheRecordSession",
    "RecallRecord",
]
