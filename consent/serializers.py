"""The consent API's wire shapes that more than the views need: a consent event as the
ledger holds it, for the list and detail endpoints and for an append's idempotent
replay (`consent.replays`)."""

from rest_framework import serializers

from consent.models import ConsentEvent


class ConsentEventOutputSerializer(serializers.ModelSerializer):
    class Meta:
        model = ConsentEvent
        fields = [
            "id",
            "sequence",
            "consent_type",
            "kind",
            "status",
            "legal_basis",
            "capture_method",
            "terms_version",
            "terms_hash",
            "witness",
            "occurred_at",
            "recorded_at",
            "valid_until",
            "supersedes",
            "record_version",
            "fingerprint",
            "previous_hash",
            "hash",
        ]
