"""`seed_demo` adds one closed, DSAR-path inspection of Ada's memory, once."""

import json

import pytest
from django.core.management import call_command

from inspection.models import InspectionNotice, InspectionRequest

pytestmark = pytest.mark.django_db


def test_the_demo_has_one_closed_inspection_with_a_delivered_notice(capsys):
    call_command("seed_demo", "--json")
    data = json.loads(capsys.readouterr().out)
    (inspection,) = InspectionRequest.objects.all()
    ada = next(m for m in data["members"] if m["email"] == "ada@iris.example")
    assert str(inspection.member_id) == ada["id"]
    assert inspection.state == "closed" and inspection.path == "dsar-fulfillment"
    assert InspectionNotice.objects.get().state == "delivered"
    call_command("seed_demo", "--json")
    assert InspectionRequest.objects.count() == 1
