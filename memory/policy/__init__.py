"""The memory app's pure rules, one module per concern: `storage` (confidence and the
privacy storage gate), `scopes` (consumers, per-scope governance, scope changes),
`retention` (retention envelopes), `conflicts` (session -> profile promotion and the
write-time conflict ladder), `handles` (multi-actor handles), `fingerprints` (forgotten-fact
fingerprints), `redaction` (PII redaction) and `freshness`.

No ORM and no settings: everything here is a function of its arguments (secrets and
clocks are passed in), so it is tested without a database. The vocabularies come from
`memory.enums`, `consent.enums` and `iris_site.enums`, which only hold `TextChoices`.
"""
