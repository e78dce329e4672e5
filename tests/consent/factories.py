from consent.services import consent_event_append, opt_out_record
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


def opt(member, category: str, opted_out: bool = True):
    """Turn an opt-out category off (or back on) as the member does, through the service."""
    return opt_out_record(
        member=member,
        category=category,
        opted_out=opted_out,
        witness="session",
        actor=Actor.of(member),
    )
