"""The episodic audit chain, the foundation every app writes through: the append-only
event store with per-member hash chains (`events`), payload vetting and chain hashing
(`policy`, pure), signed checkpoints (`checkpoint`, `seal`), reads and verification
(`selectors`), and the operators' API (`apis`)."""
