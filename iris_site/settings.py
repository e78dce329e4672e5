"""Iris settings, read from the environment.

`DATABASE_URL` unset → an SQLite file in the project (the embedded quick start);
`postgres://…` → PostgreSQL, the production database. Production hardening lives
in `iris_site.production_settings`, which imports this module.
"""

import os
import re
from datetime import timedelta
from pathlib import Path

import dj_database_url
import dj_email_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


RATE = re.compile(r"\d+/(s|sec|second|m|min|minute|h|hour|d|day)")


def env_rate(name: str, default: str) -> str | None:
    """A DRF throttle rate such as `300/min`; `off` disables that limit."""
    value = (os.environ.get(name) or default).strip().lower()
    if value == "off":
        return None
    if not RATE.fullmatch(value):
        raise ImproperlyConfigured(f"{name}={value!r}: expected e.g. 300/min, 20/s or off")
    return value


def cache_from_url(url: str) -> dict:
    """`redis://…`/`rediss://…` → Django's Redis cache, shared by every worker; empty or
    `locmem://` → per-process memory (development and tests)."""
    if not url or url == "locmem://":
        return {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    if url.startswith(("redis://", "rediss://")):
        return {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": url}
    raise ImproperlyConfigured(f"CACHE_URL={url!r}: expected redis://…, rediss://… or locmem://")


DEBUG = env_bool("DEBUG", default=False)
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    # Local development and tests only; production_settings refuses to start without one.
    SECRET_KEY = "iris-insecure-development-key-change-me-" + "0" * 24

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,testserver")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "pgtrigger",
    "django_tasks_db",
    "crontask",
    "django_htmx",
    "axes",
    "iris_site",
    "hierarchy",
    "consent",
    "memory",
    "continuity",
    # datarights before inspection: siblings, but the demo's DSAR-path inspection names
    # the data-rights request datarights' demo files first.
    "datarights",
    "inspection",
    "console",
    # Change events delivered to the surfaces' webhooks (Standard Webhooks, signed).
    "webhooks",
    # The MCP server over every app (`manage.py mcp_serve`); no models.
    "interfaces",
]

MIDDLEWARE = [
    # Outermost: one content-free line for every request, refusals included.
    "iris_site.access_log.AccessLogMiddleware",
    # Before anything reads the database: a ceiling on each statement of a request.
    "iris_site.statement_timeout.StatementTimeoutMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    # High up, so even the guards' refusals below carry the headers.
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "iris_site.middleware.PermissionsPolicyMiddleware",
    "iris_site.middleware.RequestSizeLimitMiddleware",
    "iris_site.middleware.RequestEncodingMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "iris_site.middleware.AuthenticationRateLimitMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Encryption at rest: a key store that is down is a 503 (never a 500); sealed values
    # that fail authentication are counted and audited once per request.
    "iris_site.middleware.SealedFaultMiddleware",
    # Last, as django-axes requires: turns a locked-out sign-in into its 429 page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "iris_site.urls"
WSGI_APPLICATION = "iris_site.wsgi.application"
ASGI_APPLICATION = "iris_site.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.csp",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "memory.http.views.off_the_record_context",
            ],
        },
    },
]

_DATABASE_URL = os.environ.get("DATABASE_URL") or f"sqlite:///{BASE_DIR / 'db.sqlite3'}"
# On PostgreSQL a connection is kept a minute between requests (checked before reuse):
# opening one per request cost more than a recall (issue 43). Not on SQLite, where
# `runserver` serves each request on a new thread and a kept connection is never reused.
DATABASES = {
    "default": dj_database_url.parse(
        _DATABASE_URL,
        conn_max_age=int(
            os.environ.get("CONN_MAX_AGE", "60" if _DATABASE_URL.startswith("postgres") else "0")
        ),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # IMMEDIATE takes the write lock at BEGIN, so appends to the hash chains are
    # serialized instead of failing with "database is locked" half-way through.
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
    # A file, not shared-cache memory: concurrent tests then wait on the busy timeout
    # like production writers instead of failing with "table is locked".
    DATABASES["default"]["TEST"] = {"NAME": str(BASE_DIR / f".test-db-{os.getpid()}.sqlite3")}

# An index's INCLUDE columns (`memory_member_withheld`) are PostgreSQL's: SQLite, the
# development database, keeps the index without them, as Django's warning says.
SILENCED_SYSTEM_CHECKS = ["models.W040"]

# Rate limits are counted in this cache: set CACHE_URL (or REDIS_URL) to a Redis server
# when several workers serve, or each worker counts on its own.
CACHES = {"default": cache_from_url(os.environ.get("CACHE_URL") or os.environ.get("REDIS_URL", ""))}

# Bodies above this are refused with 413 before parsing (see RequestSizeLimitMiddleware).
DATA_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
AUTH_USER_MODEL = "iris_site.User"
AUTHENTICATION_BACKENDS = [
    # First: refuses a locked-out username+IP before any password check.
    "iris_site.lockout.LoginLockoutBackend",
    "django.contrib.auth.backends.ModelBackend",
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
# Development and tests serve static files straight from the apps; production collects them.
WHITENOISE_USE_FINDERS = True
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # Bearer first: its `WWW-Authenticate` header turns "no credentials" into 401.
        "iris_site.auth.BearerTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["iris_site.api.parsers.JSONParser"],
    "DEFAULT_THROTTLE_CLASSES": [
        "iris_site.api.throttles.ReadRateThrottle",
        "iris_site.api.throttles.WriteRateThrottle",
        "iris_site.api.throttles.AnonymousRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        # Per authenticated caller (member, operator or service client).
        "read": env_rate("IRIS_RATE_READ", "1200/min"),
        "write": env_rate("IRIS_RATE_WRITE", "300/min"),
        # Per client IP.
        "anon": env_rate("IRIS_RATE_ANON", "60/min"),
        "login": env_rate("IRIS_RATE_LOGIN", "10/min"),
    },
    # Proxies in front that append to X-Forwarded-For; 0 trusts only the socket address,
    # so a client cannot choose the address it is counted under.
    "NUM_PROXIES": int(os.environ.get("IRIS_NUM_PROXIES", "0")),
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_PAGINATION_CLASS": "iris_site.api.pagination.CursorPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "iris_site.api.exceptions.exception_handler",
    "UNAUTHENTICATED_USER": None,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Iris API",
    "DESCRIPTION": (
        "Iris decides what an assistant may remember about a member, under what consent, "
        "in which scope, for how long, what it may say back in a recall, and who else may "
        "ever look. Errors share one envelope: "
        '`{"error": {"code", "message", "fields"}}`.'
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "REDOC_DIST": "SIDECAR",
    # Inline code on its own light ground: Redoc's default red on its dark sample panel
    # (the examples' described facts) is 3.2:1, below WCAG's 4.5:1.
    "REDOC_UI_SETTINGS": {
        "theme": {"typography": {"code": {"color": "#8b1a1a", "backgroundColor": "#f3f4f6"}}}
    },
    "COMPONENT_SPLIT_REQUEST": True,
    # One name for the entries' lifecycle wherever it appears (fields named `state` too).
    "ENUM_NAME_OVERRIDES": {
        "LifecycleEnum": "memory.enums.Lifecycle",
        "OptOutCategoryEnum": "consent.enums.OptOutCategory",
        "OptOutEventKindEnum": "consent.enums.OptOutEventKind",
        "ConsentEventKindEnum": "consent.enums.ConsentEventKind",
        "MemoryCategoryEnum": "memory.enums.MemoryCategory",
        "MemoryScopeKindEnum": "memory.enums.ScopeKind",
        "EntityKindEnum": "memory.enums.EntityKind",
        "EntityStateEnum": "memory.enums.EntityState",
        # Named once where the contracts and the serializers both state them.
        "ProvenanceKindEnum": "memory.enums.ProvenanceKind",
        "ContinuitySurfaceEnum": "continuity.enums.Surface",
        "StmScopeKindEnum": "hierarchy.enums.StmScopeKind",
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "iris_site.api.schema.document_retry_after",
        "iris_site.api.docs.document_operations",
    ],
}

# Sign-in lockout (django-axes): failures counted per username and client IP.
AXES_FAILURE_LIMIT = int(os.environ.get("IRIS_LOGIN_FAILURE_LIMIT", "5"))
AXES_COOLOFF_TIME = timedelta(minutes=int(os.environ.get("IRIS_LOGIN_COOLOFF_MINUTES", "15")))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
# The sign-in forms' field; axes would otherwise look for USERNAME_FIELD ("email"), find
# nothing, and lock out everyone at that address instead of one account.
AXES_USERNAME_FORM_FIELD = "username"
AXES_RESET_ON_SUCCESS = True
# The same client address the rate limits use.
AXES_CLIENT_IP_CALLABLE = "iris_site.api.throttles.client_ip"
AXES_LOCKOUT_CALLABLE = "iris_site.lockout.lockout_response"
AXES_HTTP_RESPONSE_CODE = 429
AXES_VERBOSE = False
# axes would keep every successful sign-in's raw address and user agent; lockout needs
# only the failures. Operator sign-ins keep a keyed device digest (`iris_site.operators`).
AXES_DISABLE_ACCESS_LOG = True

# Step-up (`iris_site.stepup`): an irreversible member action (forgetting, the full clear)
# needs a password entered within this many seconds, on the page or in a step-up token.
IRIS_STEP_UP_SECONDS = int(os.environ.get("IRIS_STEP_UP_SECONDS", "300"))

# Four eyes between people (`iris_site.operator_links`): how long an account change or a
# shared sign-in browser ties two operator accounts into one person for an approval.
IRIS_FOUR_EYES_LINK_DAYS = int(os.environ.get("IRIS_FOUR_EYES_LINK_DAYS", "30"))

# Security headers on every response. No 'unsafe-inline' anywhere: the few inline
# blocks (admin, API docs) carry the per-request nonce.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    "style-src": [CSP.SELF, CSP.NONCE],
    # The admin and the API docs draw a few icons from data: URLs.
    "img-src": [CSP.SELF, "data:"],
    "font-src": [CSP.SELF],
    "connect-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.NONE],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
}
# The API docs page only (Redoc, docs/design.md "The API: docs, tokens and retries"): Redoc
# sets style attributes and adds style elements without a nonce, and builds its search
# index in a blob: worker. The page shows the public schema, never member content; its
# scripts still need the nonce.
IRIS_DOCS_CSP = {
    **SECURE_CSP,
    "style-src": [CSP.SELF, CSP.UNSAFE_INLINE],
    "worker-src": [CSP.SELF, "blob:"],
}
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# Features no page of Iris uses, switched off for every page (and anything injected).
PERMISSIONS_POLICY = "camera=(), microphone=(), geolocation=(), payment=(), usb=()"

# The key the incident system signs its incident references with (HMAC-SHA256; format in
# `inspection.policy`, docs/design.md "Four eyes"). Unset: no reference verifies, so no
# incident-escalation inspection is ever granted.
INCIDENT_SIGNING_KEY = os.environ.get("INCIDENT_SIGNING_KEY", "")

# Recovery of tasks a dead worker left RUNNING (iris_site/jobs.py): requeued after the
# lease, failed after this many claims; excluded task paths are only logged.
IRIS_TASK_LEASE_SECONDS = int(os.environ.get("IRIS_TASK_LEASE_SECONDS", str(30 * 60)))
IRIS_TASK_MAX_CLAIMS = int(os.environ.get("IRIS_TASK_MAX_CLAIMS", "3"))
IRIS_TASK_RECOVERY_EXCLUDE = frozenset(env_list("IRIS_TASK_RECOVERY_EXCLUDE"))

# Webhook endpoints (webhooks.transport) never reach a private, loopback, link-local or
# reserved address unless this names its host or the address (tests: 127.0.0.1).
IRIS_WEBHOOK_ALLOWED_HOSTS = env_list("IRIS_WEBHOOK_ALLOWED_HOSTS")

TASKS = {
    "default": {
        "BACKEND": os.environ.get("IRIS_TASKS_BACKEND", "django_tasks_db.DatabaseBackend"),
        "QUEUES": ["default"],
    }
}


# Mail (the data-rights one-time codes, deadline extensions): `EMAIL_URL` names the
# transport, parsed by dj-email-url: `smtp://user:password@host:587/?tls=True`,
# `smtp://…:465/?ssl=True`, `console://`, `file:///var/spool/iris-mail`, `memory://`.
# Unset: the console under DEBUG (`make run` prints each mail, so its code can be typed
# in), SMTP on localhost:25 otherwise. Tests always use Django's locmem outbox.
def mailer_from_url(url: str) -> dict:
    """An email URL (dj-email-url's forms) → Django's `MAILERS["default"]`."""
    parsed = dj_email_url.parse(url)
    backend = parsed.get("EMAIL_BACKEND")
    if backend is None:
        raise ImproperlyConfigured(
            f"EMAIL_URL: unknown scheme in {url.split(':', 1)[0]!r}; expected smtp, console, "
            "file, memory or dummy"
        )
    if backend.endswith(".smtp.EmailBackend"):
        options = {
            "host": parsed["EMAIL_HOST"],
            "port": parsed["EMAIL_PORT"],
            "username": parsed["EMAIL_HOST_USER"] or None,
            "password": parsed["EMAIL_HOST_PASSWORD"] or None,
            "use_tls": parsed["EMAIL_USE_TLS"],
            "use_ssl": parsed["EMAIL_USE_SSL"],
            "timeout": parsed["EMAIL_TIMEOUT"] or 10,
        }
    elif backend.endswith(".filebased.EmailBackend"):
        options = {"file_path": parsed["EMAIL_FILE_PATH"]}
    else:
        options = {}
    return {"BACKEND": backend, "OPTIONS": options}


MAILERS = {
    "default": mailer_from_url(
        os.environ.get("EMAIL_URL") or ("console://" if DEBUG else "smtp://localhost:25")
    )
}
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Iris <no-reply@iris.localhost>")

# Audit checkpoints (iris_site/audit/checkpoint.py, docs/design.md "Tamper evidence"): the
# Ed25519 key that signs them lives outside the database: `AUDIT_SIGNING_KEY` (PEM or base64 of 32
# raw bytes), else the key file, generated with mode 0600 on first use in development.
# After a rotation, list the old public keys in `AUDIT_VERIFY_KEYS` (comma-separated).
AUDIT_SIGNING_KEY = os.environ.get("AUDIT_SIGNING_KEY", "")
AUDIT_SIGNING_KEY_FILE = os.environ.get(
    "AUDIT_SIGNING_KEY_FILE", str(BASE_DIR / "var" / "audit" / "signing-key.pem")
)
AUDIT_SIGNING_KEY_GENERATE = env_bool("AUDIT_SIGNING_KEY_GENERATE", default=True)
AUDIT_VERIFY_KEYS = env_list("AUDIT_VERIFY_KEYS")
AUDIT_CHECKPOINT_SINK = os.environ.get(
    "AUDIT_CHECKPOINT_SINK", "iris_site.audit.checkpoint.JsonLinesSink"
)
# The sink's JSON-lines file; unset: the database's own, `<AUDIT_CHECKPOINT_DIR>/<its
# deployment id>/checkpoints.jsonl`, so databases served from one checkout never share one.
AUDIT_CHECKPOINT_PATH = os.environ.get("AUDIT_CHECKPOINT_PATH", "")
AUDIT_CHECKPOINT_DIR = os.environ.get("AUDIT_CHECKPOINT_DIR", str(BASE_DIR / "var" / "audit"))

# Encryption at rest (iris_site.keys, docs/encryption.md). Every member's content is sealed
# under their own data key; data keys live in the key store (its own SQLite file, backed
# up on its own short schedule), wrapped by the key-encryption keyset: `IRIS_KEK` (JSON)
# or the file `IRIS_KEK_FILE`, generated with mode 0600 on first use in development.
IRIS_KEK = os.environ.get("IRIS_KEK", "")
IRIS_KEK_FILE = os.environ.get("IRIS_KEK_FILE", str(BASE_DIR / "var" / "keys" / "kek.json"))
IRIS_KEK_GENERATE = env_bool("IRIS_KEK_GENERATE", default=True)
IRIS_KEY_WRAPPER = os.environ.get("IRIS_KEY_WRAPPER", "iris_site.keys.kek.LocalKeyset")
IRIS_KEYSTORE = os.environ.get("IRIS_KEYSTORE", "iris_site.keys.store.SqliteKeyStore")
IRIS_KEYSTORE_PATH = os.environ.get(
    "IRIS_KEYSTORE_PATH", str(BASE_DIR / "var" / "keys" / "keystore.sqlite3")
)
# How long a process keeps an unwrapped data key for reading (writes always ask the store).
IRIS_KEY_CACHE_SECONDS = int(os.environ.get("IRIS_KEY_CACHE_SECONDS", "300"))

# Prometheus scrape endpoint (`GET /metrics`, bearer `IRIS_METRICS_TOKEN`): off unless
# both are set. OTLP export is configured by the standard OTEL_* variables
# (`iris_site.telemetry`).
IRIS_METRICS_ENDPOINT = env_bool("IRIS_METRICS_ENDPOINT", default=False)
IRIS_METRICS_TOKEN = os.environ.get("IRIS_METRICS_TOKEN", "")

# A `Server-Timing` header on every response: the SQL statements the request issued and
# their time (`db;dur=4.1;desc="7 statements", total;dur=23.0`), as `bench_load` reads
# them. Off by default: it tells any caller how the server does its work. The access log
# counts the statements either way (`iris_site.access_log`).
IRIS_SERVER_TIMING = env_bool("IRIS_SERVER_TIMING", default=False)

# The longest any one SQL statement of a request may run on PostgreSQL before it is cut
# (503, retry): one caller's heavy request cannot hold a connection and a core for
# long (`iris_site.statement_timeout`). Jobs and commands run without it. 0: no ceiling.
IRIS_STATEMENT_TIMEOUT_MS = int(os.environ.get("IRIS_STATEMENT_TIMEOUT_MS", "5000"))

# Keyed-hash secret for actor handles and token digests; rotating it invalidates tokens.
IRIS_HASH_SECRET = os.environ.get("IRIS_HASH_SECRET", SECRET_KEY)

# `seed_demo` derives each demo account's API token from this checkout's secret (generated
# 0600 on first use), so every `make run` prints the same tokens until `--rotate-tokens`.
# Demo only: production_settings empties it and `seed_demo` refuses to run there.
IRIS_DEMO_TOKEN_SEED_FILE = os.environ.get(
    "IRIS_DEMO_TOKEN_SEED_FILE", str(BASE_DIR / "var" / "demo" / "token-seed")
)

# Logs carry identifiers, route names and counts, never content (`iris_site.access_log`).
# The task worker and the scheduler say only warnings and errors (their INFO lines, a
# heartbeat every few seconds, would scroll the demo logins away) unless
# IRIS_VERBOSE_JOBS=true.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        "no_request_lines": {"()": "iris_site.access_log.DropServerRequestLines"},
        "route_not_path": {"()": "iris_site.access_log.RouteNotPath"},
        "refusals_in_one_line": {"()": "iris_site.access_log.RefusalsInOneLine"},
        "quiet_jobs": {
            "()": "iris_site.access_log.QuietJobs",
            "verbose": env_bool("IRIS_VERBOSE_JOBS", default=False),
        },
    },
    "handlers": {
        # A refused request (any 4xx: a 403 or 404 of `django.request`, a 400 of
        # `django.security.*` such as a bad Host) is one line; a server error keeps its
        # traceback.
        "console": {
            "class": "logging.StreamHandler",
            "filters": ["quiet_jobs", "refusals_in_one_line"],
        },
        "server": {"class": "logging.StreamHandler", "filters": ["no_request_lines"]},
    },
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {
        # Django's default sends `django.*` to its own console handler under DEBUG; here
        # it goes through ours, so the filters above hold for it too.
        "django": {"handlers": ["console"], "level": "INFO", "propagate": False},
        "django.server": {"handlers": ["server"], "level": "INFO", "propagate": False},
        "django.request": {"filters": ["route_not_path"]},
    },
}
