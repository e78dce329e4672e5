"""Production mode: everything in `iris_site.settings`, hardened for `check --deploy`."""

import os
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from iris_site.keys.kek import keyset_parse
from iris_site.settings import *  # noqa: F403
from iris_site.settings import IRIS_KEK_FILE, env_bool

DEBUG = False
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if len(SECRET_KEY) < 50:
    raise ImproperlyConfigured("production needs SECRET_KEY of at least 50 characters")

# The audit signing key is provisioned, never generated on a server
# (docs/design.md, "Tamper evidence").
AUDIT_SIGNING_KEY_GENERATE = env_bool("AUDIT_SIGNING_KEY_GENERATE", default=False)

# The key-encryption key is provisioned too, never generated, and Iris does not start
# without it: there is no unencrypted fall-back (docs/encryption.md).
IRIS_KEK_GENERATE = False
IRIS_KEK = os.environ.get("IRIS_KEK", "")
IRIS_KEK_FILE = os.environ.get("IRIS_KEK_FILE", IRIS_KEK_FILE)
if not IRIS_KEK and not os.path.isfile(IRIS_KEK_FILE):
    raise ImproperlyConfigured(
        "production needs a key-encryption key: set IRIS_KEK, or IRIS_KEK_FILE to a keyset "
        "file (docs/encryption.md, 'Keys')"
    )
# A keyset it cannot use is refused now, not at the first write (a clear message).
keyset_parse(IRIS_KEK or Path(IRIS_KEK_FILE).read_text())

# No demo accounts in production: `seed_demo` refuses without a demo token seed.
IRIS_DEMO_TOKEN_SEED_FILE = ""

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", default=True)
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", str(60 * 60 * 24 * 365)))
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SECURE_CONTENT_TYPE_NOSNIFF = True
SESSION_COOKIE_SECURE = True
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SECURE = True
# No page script reads the CSRF cookie (forms carry the token; the API docs get it inline).
CSRF_COOKIE_HTTPONLY = True
CSRF_COOKIE_SAMESITE = "Lax"
X_FRAME_OPTIONS = "DENY"
WHITENOISE_USE_FINDERS = False  # `manage.py collectstatic` at deploy time
