"""The database keeps the inspection tables honest on both engines."""

import pytest
from django.db import DatabaseError, IntegrityError, connection, transaction

from inspection.models import InspectionEvent, InspectionRequest, InspectionSnapshotItem
from tests.inspection.factories import granted, member_with_memory
from tests.iris_site.factories import OperatorFactory

pytestmark = pytest.mark.django_db

STATEMENTS = ["UPDATE {t} SET actor_role = 'x'", "DELETE FROM {t}"]
ITEM_STATEMENTS = ["UPDATE {t} SET category = 'fact'", "DELETE FROM {t}"]


@pytest.fixture
def inspection():
    member, _ = member_with_memory()
    return granted(OperatorFactory(role="legal"), member)


@pytest.mark.parametrize("statement", STATEMENTS)
def test_raw_update_and_delete_of_steps_are_rejected_by_the_database(inspection, statement):
    count = InspectionEvent.objects.count()
    with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(statement.format(t=InspectionEvent._meta.db_table))
    assert InspectionEvent.objects.count() == count == 3
    assert set(InspectionEvent.objects.values_list("actor_role", flat=True)) == {"legal"}


@pytest.mark.parametrize("statement", ITEM_STATEMENTS)
def test_raw_update_and_delete_of_pinned_pairs_are_rejected(inspection, statement):
    with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(statement.format(t=InspectionSnapshotItem._meta.db_table))
    assert InspectionSnapshotItem.objects.filter(inspection=inspection).count() == 1


def test_save_refuses_to_update_a_step_or_a_pinned_pair(inspection):
    with pytest.raises(ValueError, match="append-only"):
        InspectionEvent.objects.filter(inspection=inspection).first().save()
    with pytest.raises(ValueError, match="append-only"):
        InspectionSnapshotItem.objects.filter(inspection=inspection).first().save()


@pytest.mark.parametrize(
    "change",
    [
        {"state": "approved"},  # not a state
        {"state": "granted", "granted_at": None},  # a grant without its time box
        {"state": "closed", "closed_at": None},
        {"state": "denied", "reason_code": ""},  # a denial without its reason
        {"state": "routine-review", "path": "dsar-fulfillment"},  # path and state disagree
        {"state": "requested"},  # back to the start with a path recorded
        {"investigation_carveout": True},  # carve-out off the incident path
    ],
)
def test_check_constraints_keep_the_state_column_honest(inspection, change):
    with pytest.raises(IntegrityError), transaction.atomic():
        InspectionRequest.objects.filter(pk=inspection.pk).update(**change)
