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
    "inspection",
    "datarights",
]

MIDDLEWARE = [
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
                "memory.views.off_the_record_context",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL") or f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("CONN_MAX_AGE", "0")),
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
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "iris_site.api.schema.document_retry_after",
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

# Security headers on every response. No 'unsafe-inline' anywhere: the few inline
# blocks (admin, API docs) carry the per-request nonce.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    "style-src": [CSP.SELF, CSP.NONCE],
    # Swagger UI and the admin draw a few icons from data: URLs.
    "img-src": [CSP.SELF, "data:"],
    "font-src": [CSP.SELF],
    "connect-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.NONE],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
}
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# Features no page of Iris uses, switched off for every page (and anything injected).
PERMISSIONS_POLICY = "camera=(), microphone=(), geolocation=(), payment=(), usb=()"

# Recovery of tasks a dead worker left RUNNING (iris_site/jobs.py): requeued after the
# lease, failed after this many claims; excluded task paths are only logged.
IRIS_TASK_LEASE_SECONDS = int(os.environ.get("IRIS_TASK_LEASE_SECONDS", str(30 * 60)))
IRIS_TASK_MAX_CLAIMS = int(os.environ.get("IRIS_TASK_MAX_CLAIMS", "3"))
IRIS_TASK_RECOVERY_EXCLUDE = frozenset(env_list("IRIS_TASK_RECOVERY_EXCLUDE"))

TASKS = {
    "default": {
        "BACKEND": os.environ.get("IRIS_TASKS_BACKEND", "django_tasks_db.DatabaseBackend"),
        "QUEUES": ["default"],
    }
}

# Keyed-hash secret for actor handles and token digests; rotating it invalidates tokens.
IRIS_HASH_SECRET = os.environ.get("IRIS_HASH_SECRET", SECRET_KEY)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}
