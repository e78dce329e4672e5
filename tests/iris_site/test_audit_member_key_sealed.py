"""The audit member key is sealed under the member's data key: a copy of the database
taken before an erasure cannot resolve the member's special categories once their data
keys are destroyed, even though the copy still holds the key's row."""

import pytest

from iris_site.audit.sealing import member_key
from iris_site.keys import envelope
from iris_site.models import AuditMemberKey
from tests.iris_site.factories import MemberFactory

pytestmark = pytest.mark.django_db


def test_the_stored_key_is_sealed_and_opens_while_the_member_has_keys():
    member = MemberFactory()
    key = member_key(member.pk, create=True)
    stored = bytes(AuditMemberKey.objects.get(member_id=member.pk).key)
    assert stored.startswith(b"iris1:") and key not in stored
    envelope.cache_clear()
    assert member_key(member.pk) == key


def test_after_shredding_the_row_a_backup_would_hold_resolves_nothing():
    member, other = MemberFactory(), MemberFactory()
    member_key(member.pk, create=True)
    kept = member_key(other.pk, create=True)
    envelope.shred(member.pk)
    envelope.cache_clear()
    assert AuditMemberKey.objects.filter(member_id=member.pk).exists()  # as in the backup
    assert member_key(member.pk) is None
    assert member_key(other.pk) == kept
