from django.db import models


class BundleGeneration(models.Model):
    """How many times a member's content behind their context bundles has changed.

    Every cached bundle's key carries it (`hierarchy.bundle_cache`); the writer's own
    transaction moves it on, so every process sees a change exactly when its data
    commits. The member id is a plain UUID, not a foreign key: no lock on the member
    row, and the counter outlives an erased member harmlessly (it holds no content).
    """

    member_id = models.UUIDField(primary_key=True, editable=False)
    version = models.BigIntegerField(default=0, editable=False)

    def __str__(self) -> str:
        return f"bundle generation {self.version} of {self.member_id}"


# The short-term tier lives in its own module; imported here so Django registers it.
from hierarchy.models_stm import (  # noqa: E402
    OperatorAccessRecord,
    ReconfirmRequest,
    ShortTermHold,
    ShortTermMemory,
)

__all__ = [
    "BundleGeneration",
    "OperatorAccessRecord",
    "ReconfirmRequest",
    "ShortTermHold",
    "ShortTermMemory",
]
