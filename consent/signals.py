"""Hook points other apps connect to; consent knows nothing of what they do."""

from django.dispatch import Signal

# Sent after the transaction that appended a withdrawal or an expiry commits.
# kwargs: member_id, consent_type, event_id, kind
consent_ended = Signal()
