"""Hook points the apps above memory connect to; memory knows nothing of what they do."""

from django.dispatch import Signal

# A full clear erases the member's content kept above memory (short-term memory) at its
# request; its purge goes through the erasure service, which reaches every registered
# store. Sent synchronously inside the request's transaction, so a receiver that fails
# rolls the request back. kwargs: member_id, reason
member_content_clear = Signal()

# A re-confirmation ("Is this still true?") was settled for an entry: the member confirmed
# it, restated it or forgot it. The layer that queued the request closes it. Sent
# synchronously inside the answer's transaction. kwargs: member_id, entry_id, answer
reconfirm_settled = Signal()
