from django.conf import settings
from django.db import models


class MemberMemorySettings(models.Model):
    """How Iris may use one member's memory, as the member set it ("How Iris uses your
    memory"): stop using it, forget it automatically after some months per scope kind,
    and surfaces paused. One row per member; no row means the defaults (use it, keep it
    as the scope's retention says, no surface paused). Read by the read gate
    (`memory.selectors.member_read_state`), the write paths and the retention sweep."""

    member = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    stop_using = models.BooleanField(default=False)
    # Scope kind → months (3, 12 or 18); a kind absent keeps its envelope's retention.
    auto_forget_months = models.JSONField(default=dict, blank=True)
    # Consumer names (`iris_site.enums.Consumer`) that neither read nor write.
    paused_consumers = models.JSONField(default=list, blank=True)
    changed_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"memory settings of {self.member_id}"
