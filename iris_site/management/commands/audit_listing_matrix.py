"""``manage.py audit_listing_matrix``: what an audit listing reveals of each special
category, for each operator role and each cover."""

from django.core.management.base import BaseCommand

from iris_site.audit.listing import listing_matrix_table


class Command(BaseCommand):
    help = (
        "Print, as a Markdown table, what an operator's audit listing reveals of each special "
        "category (a memory of it written, a consent to it granted), for each operator role, "
        "with no cover and under each cover (docs/audit-listings.md holds the same table)."
    )

    def handle(self, *args, **options) -> None:
        self.stdout.write(listing_matrix_table(), ending="")
