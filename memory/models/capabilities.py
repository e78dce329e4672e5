from django.db import models

from iris_site.models import ServiceClient


class ServiceClientCapabilities(models.Model):
    """A platform operator's narrowing of one service client's capabilities.

    Each list, when set, is intersected with the consumer's row of the capability table
    (`memory.access.capabilities`), so it can only take away; an empty list takes everything of
    that dimension away (the general context always stays). Unset (null) keeps the
    table's value.
    """

    service_client = models.OneToOneField(
        ServiceClient, on_delete=models.CASCADE, primary_key=True, related_name="capabilities"
    )
    surfaces = models.JSONField(null=True, blank=True)
    contexts = models.JSONField(null=True, blank=True)
    read_kinds = models.JSONField(null=True, blank=True)
    write_kinds = models.JSONField(null=True, blank=True)
    reason = models.CharField(max_length=500, help_text="Why this client is narrowed.")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "service client capability narrowing"
        verbose_name_plural = "service client capability narrowings"

    def __str__(self) -> str:
        return f"narrowing of {self.service_client}"
