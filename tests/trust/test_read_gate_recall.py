"""Regressions of issue 15 ("One read gate") on the recall path, over real HTTP: each
"Why" bullet about recall, the withheld memory absent from `entries` and counted under
its reason in `audit_envelope.suppression_counts`."""

import time
import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from iris_site.audit.events import Actor
from iris_site.enums import Consumer
from iris_site.services import token_issue
from memory.forgetting.dsar import memory_hold_place
from memory.models import MemoryEntry, RecallRecord
from memory.pauses import memory_pause
from tests.conftest import http_request
from tests.consent.factories import record
from tests.iris_site.factories import ServiceClientFactory, TenantFactory
from tests.memory.factories import consenting_member, remember

pytestmark = pytest.mark.django_db(transaction=True)

POSE = {
    "kind": "pose",
    "session_id": "s-1",
    "scene_id": "sc-1",
    "pose_id": "p-1",
    "avatar_id": "av-1",
}
SCENE = {"kind": "scene", "session_id": "s-1", "scene_id": "sc-1", "room_id": "r-1"}


def recall(live_server, member, consumer: str, **body):
    """POST a recall as a service client of ``consumer``."""
    _, token = token_issue(owner=ServiceClientFactory(consumer=consumer))
    payload = {"surface": "shell", "scope": {"kind": "profile"}, "query": "", **body}
    return http_request(
        f"{live_server.url}/api/v1/members/{member.pk}/recall/",
        method="POST",
        token=token,
        body=payload,
    )


def bodies(response) -> list[str]:
    return [entry["body"] for entry in response.body["entries"]]


def counts(response) -> dict[str, int]:
    return response.body["audit_envelope"]["suppression_counts"]


def test_withdrawn_base_consents_recall_nothing_and_touch_no_usage_counter(live_server):
    # given two memories, then processing and storage consent withdrawn
    member = consenting_member()
    entries = [
        remember(member, body="I take my coffee black").entry,
        remember(member, body="Coffee after lunch", subject="lunch").entry,
    ]
    record(member, "data_processing", "withdrawal")
    record(member, "data_storage", "withdrawal")
    # when the assistant recalls
    response = recall(live_server, member, Consumer.ASSISTANT, surface="assistant", query="coffee")
    # then nothing comes back, both are counted, and nothing was marked as used
    assert response.status == 200
    assert response.body["entries"] == []
    assert counts(response) == {"scope-suppressed": 2}
    assert response.body["audit_envelope"]["returned_ids"] == []
    for entry in entries:
        entry.refresh_from_db()
        assert (entry.reference_count, entry.last_referenced_at) == (0, None)
    assert RecallRecord.objects.get(member=member).returned_ids == []


def test_a_crisis_recall_does_not_hand_pose_and_scene_memory_to_a_consumer_off_their_lists(
    live_server,
):
    # given pose, scene and profile memory
    member = consenting_member("sensitive_data")
    remember(member, scope=POSE, body="Left shoulder drops in warrior two")
    remember(member, scope=SCENE, body="The forest scene at dusk")
    remember(member, body="I like long walks")
    # when the shell (on the crisis blueprint, not on pose or scene) asks for the crisis
    # kind without a crisis frame
    response = recall(
        live_server, member, Consumer.SHELL, scope={"kind": "crisis"}, crisis_frame=False
    )
    # then only the profile memory comes back; pose and scene are withheld and counted
    assert response.status == 200
    assert bodies(response) == ["I like long walks"]
    assert counts(response) == {"consumer-not-allowed-for-scope": 2}
    # and the assistant, on both blueprints, gets all three
    allowed = recall(
        live_server, member, Consumer.ASSISTANT, scope={"kind": "crisis"}, surface="assistant"
    )
    assert len(allowed.body["entries"]) == 3


def test_a_notebook_recall_naming_a_tenant_withholds_tenant_memory_from_consumers_off_its_list(
    live_server,
):
    # given tenant memory of a member of the tenant
    tenant = TenantFactory()
    member = consenting_member(tenants=[tenant])
    remember(member, scope={"kind": "tenant", "tenant_id": str(tenant.pk)}, body="Course 101")
    body = {"scope": {"kind": "notebook", "notebook_id": "nb-1"}, "tenant_id": str(tenant.pk)}
    # when nisaba (on the notebook blueprint, not on the tenant one) names the tenant
    response = recall(live_server, member, Consumer.NISABA, **body)
    # then the tenant memory is withheld and counted
    assert response.status == 200
    assert response.body["entries"] == []
    assert counts(response) == {"consumer-not-allowed-for-scope": 1}
    # and the notebook, on the tenant blueprint, gets it
    allowed = recall(live_server, member, Consumer.NOTEBOOK, surface="notebook", **body)
    assert bodies(allowed) == ["Course 101"]


def test_a_shell_client_claiming_the_notebook_surface_is_refused(live_server):
    member = consenting_member()
    remember(member, body="I take my coffee black")
    response = recall(live_server, member, Consumer.SHELL, surface="notebook", query="coffee")
    assert response.status == 403
    assert response.body["error"]["code"] == "surface-not-allowed"
    assert not RecallRecord.objects.filter(member=member).exists()


def test_a_briefing_never_gets_health_memory(live_server):
    # given a medical memory the member consented to
    member = consenting_member("category:medical")
    remember(member, category="medical", body="My thyroid medication is at 8am")
    # when veritas claims the health context
    refused = recall(live_server, member, Consumer.VERITAS, context="health", query="medication")
    # then it is refused, never silently changed
    assert refused.status == 403
    assert refused.body["error"]["code"] == "context-not-allowed"
    # and in the general context the medical memory is withheld and counted
    general = recall(live_server, member, Consumer.VERITAS, context="general", query="medication")
    assert general.status == 200
    assert general.body["entries"] == []
    assert counts(general) == {"sensitive-category-outside-relevant-context": 1}
    # while tara, whose job it is, gets it in the health context
    tara = recall(live_server, member, Consumer.TARA, context="health", query="medication")
    assert bodies(tara) == ["My thyroid medication is at 8am"]


def test_a_timed_pause_that_has_ended_is_recalled_again(live_server):
    # given a memory paused until a moment from now
    member = consenting_member()
    entry = remember(member, body="I take my coffee black").entry
    ends_at = timezone.now() + timedelta(seconds=1)
    memory_pause(entry=entry, actor=Actor.of(member), ends_at=ends_at)
    paused = recall(live_server, member, Consumer.ASSISTANT, surface="assistant", query="coffee")
    assert paused.body["entries"] == []
    assert counts(paused) == {"user-pause": 1}
    # when the pause has ended
    time.sleep(max(0.0, (ends_at - timezone.now()).total_seconds()) + 0.05)
    response = recall(live_server, member, Consumer.ASSISTANT, surface="assistant", query="coffee")
    # then it is recalled and its use counted; the read wrote no resumption (the
    # `expire_memory_pauses` job writes it: a read never writes a revision)
    assert bodies(response) == ["I take my coffee black"]
    assert counts(response) == {}
    entry.refresh_from_db()
    assert entry.lifecycle == "paused" and entry.reference_count == 1
    assert entry.revisions.order_by("-number").first().action == "paused"


def test_paused_draft_superseded_and_held_matches_are_counted(live_server):
    # given one visible match and one match in each withheld state
    member = consenting_member()
    remember(member, body="Coffee: visible")
    paused = remember(member, body="Coffee: paused", subject="paused").entry
    memory_pause(entry=paused, actor=Actor.of(member))
    remember(member, body="Coffee: first version", subject="version")
    remember(member, body="Coffee: second version", subject="version")  # supersedes
    remember(member, body="Coffee: inferred", subject="version", origin="model-inferred")
    held = remember(member, body="Coffee: held", subject="held").entry
    memory_hold_place(
        member_id=member.pk,
        entry_ids=[str(held.pk)],
        request_id=uuid.uuid4(),
        release_after=timezone.now() + timedelta(days=7),
        actor=Actor.system("datarights"),
    )
    lifecycles = sorted(
        MemoryEntry.objects.filter(member=member).values_list("lifecycle", flat=True)
    )
    assert lifecycles == ["active", "active", "active", "draft", "paused", "superseded"]
    # when
    response = recall(live_server, member, Consumer.ASSISTANT, surface="assistant", query="coffee")
    # then the two visible ones come back and every other one is counted by reason
    assert sorted(bodies(response)) == ["Coffee: second version", "Coffee: visible"]
    assert counts(response) == {
        "deletion-hold": 1,
        "lifecycle-draft": 1,
        "lifecycle-superseded": 1,
        "user-pause": 1,
    }
    assert response.body["audit_envelope"]["evaluated_count"] == 6
