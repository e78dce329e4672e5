"""`seed_demo` adds one closed, DSAR-path inspection of Ada's memory and one routine
review of Ben's waiting for support, once."""

import json

import pytest
from django.core.management import call_command

from inspection.models import InspectionNotice, InspectionRequest

pytestmark = pytest.mark.django_db


def test_the_demo_has_one_closed_inspection_and_one_waiting_for_support(capsys):
    call_command("seed_demo", "--json")
    data = json.loads(capsys.readouterr().out)
    ids = {m["email"]: m["id"] for m in data["members"]}
    inspection = InspectionRequest.objects.get(member_id=ids["ada@iris.example"])
    assert inspection.state == "closed" and inspection.path == "dsar-fulfillment"
    assert InspectionNotice.objects.get().state == "delivered"
    waiting = InspectionRequest.objects.get(member_id=ids["ben@iris.example"])
    assert waiting.state == "requested" and waiting.operator.email == "support@iris.example"
    call_command("seed_demo", "--json")
    assert InspectionRequest.objects.count() == 2
