"""No operator can act as someone else through the console: a person's token and
password belong to that person alone."""

import pytest

from iris_site.models import ApiToken
from tests.iris_site.factories import MemberFactory, OperatorFactory


@pytest.mark.django_db
def test_no_one_is_issued_a_token_in_someone_elses_name(client):
    """A token minted for a member would read their memory outside any inspection; one
    for another operator would approve as them (four eyes)."""
    admin = OperatorFactory(role="admin", is_staff=True, is_superuser=True)
    member, legal = MemberFactory(), OperatorFactory(role="legal")
    client.force_login(admin)

    for other in (member, legal):
        page = client.post(
            "/admin/iris_site/user/",
            {"action": "issue_token", "_selected_action": [str(other.pk)]},
            follow=True,
        )
        assert "issued only to that person" in page.content.decode()
        assert not ApiToken.objects.filter(user=other).exists()

    own = client.post(
        "/admin/iris_site/user/", {"action": "issue_token", "_selected_action": [str(admin.pk)]}
    )
    assert own.status_code == 200 and ApiToken.objects.filter(user=admin).count() == 1


@pytest.mark.django_db
def test_no_operator_sets_someone_elses_password(client):
    """Setting a member's password in the admin would let an operator sign in as them."""
    admin = OperatorFactory(role="admin", is_staff=True, is_superuser=True)
    member = MemberFactory()
    client.force_login(admin)
    url = f"/admin/iris_site/user/{member.pk}/password/"

    assert client.get(url).status_code == 403
    refused = client.post(url, {"password1": "Another-pass-2026", "password2": "Another-pass-2026"})
    assert refused.status_code == 403
    member.refresh_from_db()
    assert not member.check_password("Another-pass-2026")
    assert client.get(f"/admin/iris_site/user/{admin.pk}/password/").status_code == 200
