from consent.services import consent_event_append
from iris_site.audit.events import Actor


def record(member, consent_type: str, kind: str = "grant", **extra):
    """Append through the one service, the way every caller does."""
    return consent_event_append(
        member=member,
        consent_type=consent_type,
        kind=kind,
        legal_basis=extra.pop("legal_basis", "consent"),
        capture_method=extra.pop("capture_method", "settings-toggle"),
        terms_version=extra.pop("terms_version", "2026-11"),
        witness=extra.pop("witness", "session"),
        actor=Actor.of(member),
        **extra,
    )
