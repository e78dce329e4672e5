"""`{% load member_labels %}`: the member-facing words of `memory.labels` as filters,
e.g. `{{ entry.scope_kind|scope_label }}`."""

from django import template

from memory import labels

register = template.Library()

register.filter("scope_label", labels.scope_label)
register.filter("category_label", labels.category_label)
register.filter("origin_label", labels.origin_label)
register.filter("lifecycle_label", labels.lifecycle_label)
register.filter("provenance_label", labels.provenance_label)
register.filter("consent_label", labels.consent_label)
register.filter("consent_status_label", labels.consent_status_label)
register.filter("capture_method_label", labels.capture_method_label)
register.filter("verification_method_label", labels.verification_method_label)
register.filter("request_status_label", labels.request_status_label)
register.filter("revision_action_label", labels.revision_action_label)
register.filter("revision_actor_label", labels.revision_actor_label)
register.filter("consumer_label", labels.consumer_label)
register.filter("change_type_label", labels.change_type_label)
