"""Property-based fuzzing of every API operation against the live OpenAPI schema.

Schemathesis generates requests from `/api/schema/` (valid and invalid ones) and sends
them in-process through the WSGI application, authenticated as the principal each part
of the API serves: a member for `/me/`, an operator of the role that may use the path
for `/operator/`, and a service client for the surfaces' endpoints. A response passes
when it is not a 5xx and its status code, content type and body are the ones the schema
documents for that operation, so the schema clients code against stays true.

The default run is bounded and derandomized (same cases on every run, so CI is not
flaky); `IRIS_FUZZ_EXAMPLES=500` asks for a longer, seeded-at-random run.
"""

import copy
import os
import re
import zlib
from urllib.parse import unquote_to_bytes, urlsplit

import hypothesis
import pytest
import schemathesis
from django.conf import settings
from django.core.cache import caches
from django.core.signals import request_finished, request_started
from django.db import close_old_connections, transaction
from django.test import override_settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from iris_site.enums import Consumer, OperatorRole
from iris_site.wsgi import application
from tests.trust.conftest import MEMBER_A

DEFAULT_EXAMPLES = 8
EXAMPLES = int(os.environ.get("IRIS_FUZZ_EXAMPLES", DEFAULT_EXAMPLES))
# Only the default run is derandomized; a longer run on demand explores new ground.
DERANDOMIZE = "IRIS_FUZZ_EXAMPLES" not in os.environ

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


def _pep3333(app):
    """Hand Django the path as a real server does.

    Schemathesis' WSGI transport puts the decoded (Unicode) path in `PATH_INFO`; PEP 3333
    servers pass its raw bytes as Latin-1, which is what Django and the UTF-8 check of
    `RequestEncodingMiddleware` read. Rebuilt from the raw request URI, a generated "é"
    is no longer mistaken for the invalid byte 0xE9.
    """

    def wsgi(environ, start_response):
        raw = environ.get("REQUEST_URI")
        if raw:
            environ["PATH_INFO"] = unquote_to_bytes(urlsplit(raw).path).decode("latin-1")
        return app(environ, start_response)

    return wsgi


schema = schemathesis.openapi.from_wsgi("/api/schema/", _pep3333(application))
schema.config.generation.update(max_examples=EXAMPLES, deterministic=DERANDOMIZE)

member_schema = schema.include(path_regex=r"^/api/v1/me/")
service_schema = schema.include(path_regex=r"^/api/v1/(members|short-term)/")
operator_schema = schema.include(path_regex=r"^/api/v1/operator/")


@pytest.fixture(autouse=True, scope="module")
def _keep_test_connection():
    """The WSGI handler closes "old" connections at each request's start and end; on
    PostgreSQL that closes the test transaction's connection mid-test (then a 500)."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture(autouse=True, scope="module")
def _no_rate_limits():
    """A fuzz run sends hundreds of requests per caller a minute; throttled, most cases
    would stop at a 429 before reaching a view (the limits have their own tests)."""
    rates = dict.fromkeys(settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"])
    with override_settings(
        REST_FRAMEWORK={**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    ):
        yield


@pytest.fixture(scope="module")
def real_ids(trust_world) -> dict[str, list[str]]:
    """Ids of member A's rows by path parameter (or, for `{id}`, by the resource before it)."""
    o = trust_world.objects
    return {
        "member_id": [str(trust_world.a.pk)],
        "session_id": ["s-1"],
        "scope_id": ["s-1"],
        "stm_id": [str(o["stm"].pk)],
        "entity_id": [o["entry"].subject, str(o["entry"].pk)],
        "actor_handle": [o["actor_entry"].actor_handle],
        "memories": [
            str(o[name].pk)
            for name in (
                "entry",
                "session_entry",
                "inferred_entry",
                "paused_entry",
                "actor_entry",
                "sensitive_entry",
            )
        ],
        "notices": [str(o["notice"].pk)],
        "events": [str(o["consent_event"].pk)],
        "continuation-tokens": [str(o["continuation"].pk)],
        "data-rights": [str(o["dsar_submitted"].pk), str(o["dsar_completed"].pk)],
        "inspections": [str(o["inspection"].pk)],
    }


def _use_real_ids(case, real_ids: dict[str, list[str]]) -> None:
    """Point most cases at rows that exist (a quarter keep the generated, unknown ids).

    The choice is a hash of the generated values, so a derandomized run stays the same.
    """
    for name, value in list(case.path_parameters.items()):
        pick = zlib.crc32(f"{case.path}|{name}|{value}".encode())
        if pick % 4 == 0:
            continue
        key = re.search(r"/([a-z-]+)/\{id\}", case.path).group(1) if name == "id" else name
        candidates = real_ids.get(key)
        if candidates:
            case.path_parameters[name] = candidates[pick % len(candidates)]


def _run(case, real_ids, token: str) -> None:
    _use_real_ids(case, real_ids)
    # Each case in its own savepoint, as each request has its own transaction in
    # production: a statement PostgreSQL refused (a 400) must not leave the test's
    # transaction aborted for the next case, and no case sees what another wrote.
    with transaction.atomic():
        case.call_and_validate(headers={"Authorization": f"Bearer {token}"}, checks=CHECKS)
        transaction.set_rollback(True)


@member_schema.parametrize()
@pytest.mark.django_db
def test_member_api(case, trust_world, real_ids):
    _run(case, real_ids, trust_world.tokens[MEMBER_A])


@service_schema.parametrize()
@pytest.mark.django_db
def test_service_api(case, trust_world, real_ids):
    # Continuation tokens belong to continuity surfaces; the shell reads all of them.
    consumer = Consumer.SHELL if "/continuation-tokens/" in case.path else Consumer.ASSISTANT
    _run(case, real_ids, trust_world.tokens[f"service:{consumer}"])


def _operator_role(path: str) -> str:
    """A role that may use the path: legal runs the DSAR queue, trust & safety reads
    member data in the hierarchy tools, an admin (no tenant) the rest."""
    if "/data-rights/" in path:
        return OperatorRole.LEGAL
    if re.search(r"/memory-hierarchy/(stm|ltm)/", path):
        return OperatorRole.TRUST_AND_SAFETY
    return OperatorRole.ADMIN


@operator_schema.parametrize()
@pytest.mark.django_db
def test_operator_api(case, trust_world, real_ids):
    _run(case, real_ids, trust_world.tokens[f"operator:{_operator_role(case.path)}"])


# --- Stateful: create, then use what was created -------------------------------------------

# drf-spectacular emits no OpenAPI links (and has no API to declare them), so the schema
# clients read has none; the workflows add the create → use pairs here, next to the
# ones Schemathesis infers itself (e.g. an operator's inspection → its transitions).
_CREATED = "$response.body#/id"
LINKS = {
    "v1_me_memories_create": (
        "201",
        {"id": _CREATED},
        [
            "v1_me_memories_retrieve",
            "v1_me_memories_partial_update",
            "v1_me_memories_preview_create",
            "v1_me_memories_revisions_list",
            "v1_me_memories_forget_create",
            "v1_me_memories_pause_create",
            "v1_me_memories_resume_create",
            "v1_me_memories_confirm_create",
            "v1_me_memories_scope_create",
        ],
    ),
    "v1_me_consents_events_create": ("201", {"id": _CREATED}, ["v1_me_consents_events_retrieve"]),
    "v1_me_data_rights_create": (
        "201",
        {"id": _CREATED},
        [
            "v1_me_data_rights_retrieve",
            "v1_me_data_rights_verify_create",
            "v1_me_data_rights_cancel_create",
            "v1_me_data_rights_appeal_create",
            "v1_me_data_rights_download_retrieve",
        ],
    ),
    "write_short_term": (
        "201",
        {"stm_id": _CREATED, "member_id": "$request.path.member_id"},
        ["refresh_short_term", "consolidate_short_term"],
    ),
}


def _with_links(raw: dict) -> dict:
    raw = copy.deepcopy(raw)
    operations = {
        op["operationId"]: op
        for item in raw["paths"].values()
        for op in item.values()
        if isinstance(op, dict) and "operationId" in op
    }
    for source, (status, parameters, targets) in LINKS.items():
        response = operations[source]["responses"][status]
        for target in targets:
            wanted = {
                name: value
                for name, value in parameters.items()
                if any(p["name"] == name for p in _path_parameters(raw, target))
            }
            response.setdefault("links", {})[target] = {
                "operationId": target,
                "parameters": wanted,
            }
    return raw


def _path_parameters(raw: dict, operation_id: str) -> list[dict]:
    for item in raw["paths"].values():
        for op in item.values():
            if isinstance(op, dict) and op.get("operationId") == operation_id:
                return [p for p in op.get("parameters", []) if p["in"] == "path"]
    return []


linked_schema = schemathesis.openapi.from_dict(_with_links(schema.raw_schema))
linked_schema.app = schema.app
# Workflows are about valid sequences; invalid single requests are the fuzzing's job.
linked_schema.config.generation.update(modes=["positive"])
STATEFUL_SETTINGS = hypothesis.settings(
    max_examples=max(10, EXAMPLES),
    stateful_step_count=8,
    derandomize=DERANDOMIZE,
    deadline=None,
    suppress_health_check=list(hypothesis.HealthCheck),
)


def _workflow(part, token: str, member_id: str):
    class Workflow(part.as_state_machine()):
        def setup(self):
            # Every scenario starts from the same world: what one scenario created would
            # otherwise change what the next one can draw (Hypothesis calls that flaky).
            self._scenario = transaction.atomic()
            self._scenario.__enter__()
            for cache in caches.all():
                cache.clear()

        def teardown(self):
            transaction.set_rollback(True)
            self._scenario.__exit__(None, None, None)

        def before_call(self, case):
            # The surfaces act for member A; what follows comes from the links.
            if "member_id" in case.path_parameters:
                case.path_parameters["member_id"] = member_id

        def get_call_kwargs(self, case):
            return {"headers": {"Authorization": f"Bearer {token}"}}

        def validate_response(self, response, case, additional_checks=None, **kwargs):
            case.validate_response(response, checks=CHECKS)

    return Workflow


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("part", "principal"),
    [
        (r"^/api/v1/me/", MEMBER_A),
        (r"^/api/v1/(members|short-term)/", f"service:{Consumer.ASSISTANT}"),
        (r"^/api/v1/operator/", f"operator:{OperatorRole.ADMIN}"),
    ],
    ids=["member", "service", "operator"],
)
def test_workflows(trust_world, part, principal):
    part_schema = linked_schema.include(path_regex=part)
    workflow = _workflow(part_schema, trust_world.tokens[principal], str(trust_world.a.pk))
    workflow.run(settings=STATEFUL_SETTINGS)
