"""Identity reads other apps use."""

from iris_site.models import User


def operator_tenant_id(user: User):
    """The tenant an operator is bound to, or None for a platform-wide operator."""
    return user.operator_profile.tenant_id
