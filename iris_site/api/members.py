"""The member a surface's path names (`/api/v1/members/{member_id}/…`)."""

from iris_site.enums import UserKind
from iris_site.errors import NotFound
from iris_site.models import User


def member_or_404(member_id) -> User:
    """The active member with this id; `NotFound` (404 `not_found`) for anyone else: no
    such user, an operator, or a deactivated member are indistinguishable."""
    member = User.objects.filter(pk=member_id, kind=UserKind.MEMBER, is_active=True).first()
    if member is None:
        raise NotFound()
    return member
