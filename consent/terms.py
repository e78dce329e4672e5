"""Published consent terms, by version. The ledger records the hash of what was shown.

Editing the text of a published version is exactly the drift the fingerprint and the
terms hash exist to reveal; publish a new version instead.
"""

from consent.policy import compute_terms_hash

CURRENT_TERMS_VERSION = "2026-11"

TERMS: dict[str, str] = {
    "2026-11": (
        "Iris keeps what you tell the assistant only with your consent, only in the scope "
        "you choose, and only for as long as the retention rules for that scope allow. "
        "Sensitive categories (health, sexuality, finances, legal matters, faith and the "
        "others listed in your settings) are kept and recalled only with your separate "
        "consent for each category, and only in a context where they are relevant. You can "
        "withdraw any consent at any time, as easily as you gave it; withdrawing consent for "
        "a sensitive category forgets what Iris kept under it. Operators never read your "
        "memory except through a recorded, policy-gated inspection that you are told about."
    ),
}

TERMS_HASHES: dict[str, str] = {
    version: compute_terms_hash(text) for version, text in TERMS.items()
}
