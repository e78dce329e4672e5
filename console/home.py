"""The operator home: what is waiting for this operator, each linking to its page."""

from django.shortcuts import render
from django.views.decorators.http import require_GET

from console.access import console_page, operator_role
from iris_site.api.gated import content_free


@content_free
@require_GET
@console_page()
def console_home(request):
    return render(
        request,
        "console/home.html",
        {"role": operator_role(request.user), "sections": []},
    )
