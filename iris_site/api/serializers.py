"""Serializer bases every app's API shares."""

from rest_framework import serializers


class StrictInputSerializer(serializers.Serializer):
    """Refuses fields it does not know, so a client never believes it set one."""

    def validate(self, attrs):
        unknown = sorted(set(self.initial_data) - set(self.fields))
        if unknown:
            raise serializers.ValidationError({name: ["Unknown field."] for name in unknown})
        return attrs
