"""A failed delete keeps none of the erased text (issue 41): the text requests that failed
before sealed for their forget-completeness check goes. A retry collects again what is
still stored (`datarights.processing`). A failed export keeps its sealed key."""

from django.db import migrations


def drop_sealed_text(apps, schema_editor) -> None:
    requests = apps.get_model("datarights", "DataRightsRequest")
    requests.objects.filter(kind="delete", status="failed").exclude(work_state="").update(
        work_state=""
    )


class Migration(migrations.Migration):
    dependencies = [
        ("datarights", "0004_failure_reason"),
    ]

    operations = [migrations.RunPython(drop_sealed_text, migrations.RunPython.noop)]
