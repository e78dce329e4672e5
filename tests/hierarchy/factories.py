from hierarchy.events import Actor, audit_event_append


def append_events(count: int, *, member_id=None) -> list:
    return [
        audit_event_append(
            action="test.event.recorded",
            policy_id="iris-test-v1",
            actor=Actor.system(),
            target_member_id=member_id,
            payload={"index": index},
        )
        for index in range(count)
    ]
