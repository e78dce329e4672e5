from iris_site.models.identity import OperatorProfile, Tenant, TenantMembership, User
from iris_site.models.tokens import ApiToken, ServiceClient

__all__ = ["ApiToken", "OperatorProfile", "ServiceClient", "Tenant", "TenantMembership", "User"]
