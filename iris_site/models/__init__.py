from iris_site.models.audit import AuditCheckpoint, AuditEvent, AuditMemberKey
from iris_site.models.deployment import Deployment
from iris_site.models.idempotency import IdempotencyRecord
from iris_site.models.identity import (
    OperatorAccountChange,
    OperatorProfile,
    OperatorSignIn,
    Tenant,
    TenantMembership,
    User,
)
from iris_site.models.tokens import ApiToken, ServiceClient

__all__ = [
    "ApiToken",
    "AuditCheckpoint",
    "AuditEvent",
    "AuditMemberKey",
    "Deployment",
    "IdempotencyRecord",
    "OperatorAccountChange",
    "OperatorProfile",
    "OperatorSignIn",
    "ServiceClient",
    "Tenant",
    "TenantMembership",
    "User",
]
