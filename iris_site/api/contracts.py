"""One pydantic contract per operation's input: it validates, it documents, it is read.

`@contract(body=Model, query=Model)` on a DRF view method validates the JSON body and the
query string with the models (each `extra="forbid"`: an unknown field or parameter is
refused, named), hands the instances to the method as its `body` and `query` keyword
arguments, documents the operation's request body and query parameters from the same
models (OpenAPI, through drf-spectacular), and records them on the method
(`operation_contract(method)`) so that other code can read what the operation takes
(the MCP tools are generated from it).

A refusal is the API's 400 envelope with code `invalid` and the field named; `invalid`
may render the fields and the message its own way (the continuation token's readable
messages). The member the path names (`member_id`) is the validation context's `user_id`
(a contract may fill a scope's member from it). The body is validated as the JSON it
came as, so a strict contract sees what the client sent (a UUID as a string).
"""

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Annotated

import pydantic
from django.db import models
from drf_spectacular.extensions import OpenApiSerializerExtension
from drf_spectacular.plumbing import ResolvedComponent, list_hash
from drf_spectacular.utils import OpenApiParameter, extend_schema

from iris_site.api.exceptions import pydantic_fields
from iris_site.errors import InvalidInput

Fields = Callable[[pydantic.ValidationError], dict[str, list[str]]]


@dataclass(frozen=True, slots=True)
class OperationContract:
    """What an operation takes: its JSON body's contract and its query string's."""

    body: type[pydantic.BaseModel] | None = None
    query: type[pydantic.BaseModel] | None = None


def operation_contract(handler) -> OperationContract | None:
    """The contract recorded on a view method by `@contract`, if any."""
    return getattr(handler, "operation_contract", None)


NULL = {"type": "null"}


def _text_choices(base=models.TextChoices):
    for choices in base.__subclasses__():
        yield choices
        yield from _text_choices(choices)


def _enum_id(values: list) -> str:
    """The id drf-spectacular gives a serializer's choice field with these values (from
    their labels, as a `TextChoices` says them), so that an enum the contracts and the
    serializers share is one enum of the document, under its one name."""
    candidates = sorted(_text_choices(), key=lambda choices: len(choices.values))
    for choices in candidates:  # the one with exactly these values, else the least above
        labels = dict(choices.choices)
        if set(values) <= set(labels):
            return list_hash([(value, labels[value]) for value in values])
    return list_hash([(value, value) for value in values])


def openapi_schema(schema, component=None):
    """A contract's JSON Schema (pydantic's, 2020-12) as OpenAPI 3.0 says it: a nullable
    value is `nullable: true` rather than a `null` alternative, a constant a one-value enum.
    `component(name, schema)` makes a titled alternative of a `oneOf` a component of its
    own and returns its reference (so that each alternative's enums are named once)."""
    if isinstance(schema, list):
        return [openapi_schema(item, component) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: openapi_schema(value, component) for key, value in schema.items()}
    if component is not None and "oneOf" in out:
        out["oneOf"] = [
            component(option["title"], option) if "title" in option else option
            for option in schema["oneOf"]
        ]
        tag = out.get("discriminator", {}).get("propertyName")
        if tag is not None:  # OpenAPI's implicit mapping would be the components' names
            out["discriminator"]["mapping"] = {
                option["properties"][tag]["const"]: ref["$ref"]
                for option, ref in zip(schema["oneOf"], out["oneOf"], strict=True)
            }
    if "const" in out:
        out["enum"] = [out.pop("const")]
    elif "enum" in out:
        out["x-spec-enum-id"] = _enum_id(out["enum"])
    options = out.get("anyOf")
    if options and NULL in options:
        rest = [option for option in out.pop("anyOf") if option != NULL]
        if len(rest) > 1:
            out["anyOf"] = rest
        elif "$ref" in rest[0]:
            out["allOf"] = rest
        else:
            out = {**rest[0], **out}
        out["nullable"] = True
    return out


class ContractExtension(OpenApiSerializerExtension):
    """A pydantic contract in the OpenAPI document: its validation schema (what a client
    may send), in OpenAPI 3.0's dialect, its nested models as components."""

    target_class = pydantic.BaseModel
    match_subclasses = True
    priority = 1  # before drf-spectacular's own pydantic support (serialization schemas)

    def get_name(self, auto_schema, direction):
        # drf-spectacular adds `Request` to a request body's component.
        return self.target.__name__.removesuffix("Request")

    def map_serializer(self, auto_schema, direction):
        # The nested models, as request components of their own (`...Input`), apart from
        # the serializers' components of the same name.
        schema = self.target.model_json_schema(ref_template="#/components/schemas/{model}Input")

        def component(name: str, nested: dict) -> dict:
            resolved = ResolvedComponent(
                name=f"{name}Input",
                type=ResolvedComponent.SCHEMA,
                object=f"{name}Input",
                schema=openapi_schema(nested, component),
            )
            auto_schema.registry.register_on_missing(resolved)
            return resolved.ref

        for name, nested in schema.pop("$defs", {}).items():
            component(name, nested)
        return openapi_schema(schema, component)


def query_parameters(model: type[pydantic.BaseModel]) -> list[OpenApiParameter]:
    """The query contract's fields as OpenAPI query parameters (their JSON schemas)."""
    schema = openapi_schema(model.model_json_schema())
    required = set(schema.get("required", ()))
    return [
        OpenApiParameter(
            name,
            {key: value for key, value in field.items() if key not in ("title", "description")},
            OpenApiParameter.QUERY,
            required=name in required,
            description=field.get("description", ""),
        )
        for name, field in schema["properties"].items()
    ]


def _refused(exc: pydantic.ValidationError, message: str, fields: Fields) -> InvalidInput:
    return InvalidInput(message, fields=fields(exc))


def contract(
    *,
    body: type[pydantic.BaseModel] | None = None,
    query: type[pydantic.BaseModel] | None = None,
    invalid: str = "The request is invalid.",
    fields: Fields = pydantic_fields,
):
    """Validate, hand over, document and record a view method's input (module docstring).
    Place it below `@idempotent` (a refused input is never remembered) and above the
    method's own `@extend_schema`."""

    def decorate(handler):
        @functools.wraps(handler)
        def wrapper(view, request, *args, **kwargs):
            context = {"user_id": kwargs["member_id"]} if "member_id" in kwargs else {}
            given = {}
            if query is not None:
                params = request.query_params
                raw = {
                    name: params.getlist(name) if len(params.getlist(name)) > 1 else params[name]
                    for name in params
                }
                try:
                    given["query"] = query.model_validate(raw, context=context)
                except pydantic.ValidationError as exc:
                    raise _refused(exc, invalid, fields) from exc
            if body is not None:
                data = request.data
                if not isinstance(data, dict):
                    raise InvalidInput(
                        "The request body must be a JSON object.",
                        fields={"non_field_errors": ["Expected a JSON object."]},
                    )
                try:
                    given["body"] = body.model_validate_json(
                        json.dumps(data, allow_nan=False), context=context
                    )
                except pydantic.ValidationError as exc:
                    raise _refused(exc, invalid, fields) from exc
            return handler(view, request, *args, **kwargs, **given)

        wrapper.operation_contract = OperationContract(body=body, query=query)
        documented = {"parameters": query_parameters(query)} if query is not None else {}
        if body is not None:
            documented["request"] = body
        return extend_schema(**documented)(wrapper) if documented else wrapper

    return decorate


def _one_instant(value: datetime) -> datetime:
    try:
        utc = value.astimezone(UTC)
        _ = (utc - timedelta(days=1), utc + timedelta(days=1))
    except OverflowError:
        raise ValueError("Give a time between the years 1 and 9999.") from None
    return utc


# An input time: ISO 8601 with its zone, read as one UTC instant (so equal bodies are equal
# and read back as sent); a time at the calendar's very edge ("0001-01-01T00:00+05:00",
# a day before year 1 in UTC) is the caller's 400, never arithmetic that fails later.
Instant = Annotated[pydantic.AwareDatetime, pydantic.AfterValidator(_one_instant)]


class CursorPageQuery(pydantic.BaseModel):
    """The query of a cursor-paginated list (`iris_site.api.pagination.CursorPagination`)."""

    model_config = pydantic.ConfigDict(extra="forbid")

    cursor: str | None = pydantic.Field(
        default=None, min_length=1, description="The `next` (or `previous`) link's cursor."
    )
    page_size: int | None = pydantic.Field(
        default=None, ge=1, description="Rows per page (default 50, at most 200)."
    )
