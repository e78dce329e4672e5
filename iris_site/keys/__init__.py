"""Encryption at rest: per-member data keys, wrapped by a key-encryption key, kept in a
key store outside the main database (docs/encryption.md).

- `kek`: the key-encryption keyset and its wrapping (a KMS replaces it behind two methods);
- `store`: the key store (a SQLite file of its own by default);
- `envelope`: sealing and opening values, keyed tokens, crypto-shredding;
- `fields`: model fields whose column holds only sealed values.
"""
