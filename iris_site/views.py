"""Site pages and the health probe."""

from django.db import connection
from django.http import JsonResponse
from django.shortcuts import redirect
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from django.views.generic import TemplateView

from iris_site.api.gated import content_free


@content_free
@never_cache
@require_GET
def healthz(request):
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except Exception:
        return JsonResponse({"status": "degraded", "database": "unavailable"}, status=503)
    return JsonResponse({"status": "ok", "database": "ok"})


@content_free
class HomeView(TemplateView):
    """The public home; signing in lands here (`LOGIN_REDIRECT_URL`), and a signed-in
    person goes on to their own place: an operator to the console, a member to their
    memory page."""

    template_name = "iris_site/home.html"

    def get(self, request, *args, **kwargs):
        user = request.user
        if user.is_authenticated and user.is_operator:
            return redirect("console:home")  # refused there without a role (403)
        if user.is_authenticated and user.is_member:
            return redirect("memory:index")
        return super().get(request, *args, **kwargs)
