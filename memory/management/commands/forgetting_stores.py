"""``manage.py forgetting_stores``: every content store and how it erases each extent."""

from django.core.management.base import BaseCommand

from memory.forgetting.stores import extent_table


class Command(BaseCommand):
    help = (
        "Print the registry of content stores as a Markdown table: each store, its tables "
        "and how it erases a fact, a person, a conversation, a scope, a category and "
        "everything (docs/forgetting.md holds the same table)."
    )

    def handle(self, *args, **options) -> None:
        self.stdout.write(extent_table(), ending="")
