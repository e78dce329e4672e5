from iris_site.models.audit import AuditCheckpoint, AuditEvent
from iris_site.models.idempotency import IdempotencyRecord
from iris_site.models.identity import OperatorProfile, Tenant, TenantMembership, User
from iris_site.models.tokens import ApiToken, ServiceClient

__all__ = [
    "ApiToken",
    "AuditCheckpoint",
    "AuditEvent",
    "IdempotencyRecord",
    "OperatorProfile",
    "ServiceClient",
    "Tenant",
    "TenantMembership",
    "User",
]
