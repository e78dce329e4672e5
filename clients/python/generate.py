"""Regenerate `iris_client`'s operations and models from the project's OpenAPI schema.

    .venv/bin/python clients/python/generate.py          # rewrite the generated files
    .venv/bin/python clients/python/generate.py --check  # exit 1 if they differ (CI)

The schema is the one `manage.py spectacular` serves, narrowed to what a client of Iris
calls: the surface operations (`/api/v1/members/…`, `/api/v1/events/…`) and the member's
own (`/api/v1/me/…`), with only their success answers (the client raises every error as
an `iris_client.IrisError`, so no operation returns an error envelope), and two changes of
form the generator needs (no titles; discriminators with their mapping). The operations
and models are openapi-python-client's output, untouched; `idempotent.py` lists the writes
that take an `Idempotency-Key`, which `iris_client.session` keys and retries.
"""

import argparse
import filecmp
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
PACKAGE = HERE / "iris_client"
PROJECT = HERE.parent.parent
PREFIXES = ("/api/v1/members/", "/api/v1/events/", "/api/v1/me/")
# What openapi-python-client writes (`--meta none`); the rest of the package is by hand.
GENERATED = ("api", "models", "client.py", "errors.py", "types.py", "idempotent.py")
WRITES = ("post", "put", "patch", "delete")


def project_schema() -> dict:
    """The schema as the project serves it (`manage.py spectacular`)."""
    with tempfile.TemporaryDirectory() as folder:
        target = Path(folder) / "schema.json"
        subprocess.run(  # noqa: S603
            [
                sys.executable,
                "manage.py",
                "spectacular",
                "--format=openapi-json",
                f"--file={target}",
            ],
            cwd=PROJECT,
            check=True,
        )
        return json.loads(target.read_text())


def _refs(node, found: set[str]) -> None:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
            found.add(ref.rsplit("/", 1)[1])
        for inner in node.values():
            _refs(inner, found)
    elif isinstance(node, list):
        for inner in node:
            _refs(inner, found)


def _untitled(node):
    """The schema without `title`s: openapi-python-client names a model by its title, and
    the pydantic contracts' titles repeat other components' names (two `MemorySuppression`s);
    untitled, every model is named by its component, which is unique."""
    if isinstance(node, list):
        return [_untitled(inner) for inner in node]
    if not isinstance(node, dict):
        return node
    return {
        key: {name: _untitled(inner) for name, inner in value.items()}
        if key == "properties"
        else _untitled(value)
        for key, value in node.items()
        if key != "title"
    }


def _mapped(node, models: dict):
    """Each discriminator with its `mapping` spelled out. Left out, OpenAPI maps a value to
    the component of that name; pydantic's discriminated unions (`scope` by `kind`) mean
    each variant's one `kind` value instead, which is what the mapping then says."""
    if isinstance(node, list):
        return [_mapped(inner, models) for inner in node]
    if not isinstance(node, dict):
        return node
    node = {key: _mapped(value, models) for key, value in node.items()}
    found = node.get("discriminator")
    if found and "mapping" not in found and "oneOf" in node:
        mapping = {}
        for variant in node["oneOf"]:
            tag = models[variant["$ref"].rsplit("/", 1)[1]]["properties"][found["propertyName"]]
            for ref in tag.get("allOf", []):
                tag = models[ref["$ref"].rsplit("/", 1)[1]]
            [value] = [tag["const"]] if "const" in tag else tag["enum"]
            mapping[value] = variant["$ref"]
        node["discriminator"] = {**found, "mapping": mapping}
    return node


def client_schema(schema: dict) -> dict:
    """The client's operations with their success answers, and the models they reach."""
    paths = {}
    for path, item in schema["paths"].items():
        if not path.startswith(PREFIXES):
            continue
        paths[path] = {
            method: {
                **operation,
                "responses": {
                    status: answer
                    for status, answer in operation["responses"].items()
                    if status.startswith("2")
                },
            }
            if isinstance(operation, dict) and "responses" in operation
            else operation
            for method, operation in item.items()
        }
    models = schema["components"]["schemas"]
    reached: set[str] = set()
    _refs(paths, reached)
    todo = list(reached)
    while todo:
        more: set[str] = set()
        _refs(models[todo.pop()], more)
        todo.extend(more - reached)
        reached |= more
    kept = {name: models[name] for name in sorted(reached)}
    components = {**schema["components"], "schemas": _untitled(_mapped(kept, models))}
    return {**schema, "paths": _untitled(_mapped(paths, models)), "components": components}


def idempotent_source(schema: dict) -> str:
    """`idempotent.py`: the writes whose schema takes an `Idempotency-Key` header."""
    keyed = sorted(
        (method.upper(), path)
        for path, item in schema["paths"].items()
        for method, operation in item.items()
        if method in WRITES
        and any(p.get("name") == "Idempotency-Key" for p in operation.get("parameters", []))
    )
    lines = "".join(
        f"        ({json.dumps(method)}, {json.dumps(path)}),\n" for method, path in keyed
    )
    return (
        '"""Generated by clients/python/generate.py from the OpenAPI schema: the writes that\n'
        'take an `Idempotency-Key` (method, path template). Do not edit."""\n\n'
        f"IDEMPOTENT_WRITES = frozenset(\n    {{\n{lines}    }}\n)\n"
    )


def generate(schema: dict, target: Path) -> None:
    """openapi-python-client's package for `schema` in `target` (which must not exist)."""
    ruff = Path(sys.executable).parent / "ruff"
    config = {
        "literal_enums": True,
        "post_hooks": [
            f"{ruff} check --isolated --fix-only --extend-select I --line-length 100 .",
            f"{ruff} format --isolated --line-length 100 .",
        ],
    }
    with tempfile.TemporaryDirectory() as folder:
        document, settings = Path(folder) / "schema.json", Path(folder) / "config.json"
        document.write_text(json.dumps(client_schema(schema), indent=1))
        settings.write_text(json.dumps(config))
        run = subprocess.run(  # noqa: S603
            [
                Path(sys.executable).parent / "openapi-python-client",
                "generate",
                "--meta=none",
                f"--path={document}",
                f"--config={settings}",
                f"--output-path={target}",
                "--fail-on-warning",
            ],
            capture_output=True,
            text=True,
            check=False,
        )
    if run.returncode:
        raise SystemExit(f"openapi-python-client refused the schema:\n{run.stdout}{run.stderr}")
    (target / "idempotent.py").write_text(idempotent_source(client_schema(schema)))


def differences(fresh: Path, committed: Path) -> list[str]:
    """Generated files that are missing, extra or changed in `committed`."""
    changed: list[str] = []

    def walk(compare: filecmp.dircmp, prefix: str) -> None:
        changed.extend(prefix + name for name in compare.left_only + compare.right_only)
        changed.extend(prefix + name for name in compare.diff_files + compare.funny_files)
        for name, inner in compare.subdirs.items():
            walk(inner, f"{prefix}{name}/")

    for name in GENERATED:
        left, right = fresh / name, committed / name
        if left.is_dir() and right.is_dir():
            walk(filecmp.dircmp(left, right, ignore=["__pycache__"]), f"{name}/")
        elif not (left.is_file() and right.is_file() and filecmp.cmp(left, right, shallow=False)):
            changed.append(name)
    return sorted(changed)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--check", action="store_true", help="compare with the committed files, write nothing"
    )
    args = parser.parse_args(argv)
    schema = project_schema()
    with tempfile.TemporaryDirectory() as folder:
        fresh = Path(folder) / "iris_client"
        generate(schema, fresh)
        changed = differences(fresh, PACKAGE)
        if args.check:
            if changed:
                print(
                    "iris_client disagrees with the OpenAPI schema; regenerate it with "
                    "`make client` and commit the result. Differing: " + ", ".join(changed),
                    file=sys.stderr,
                )
            return 1 if changed else 0
        for name in GENERATED:
            old, new = PACKAGE / name, fresh / name
            if old.is_dir():
                shutil.rmtree(old)
            elif old.exists():
                old.unlink()
            shutil.move(new, old)
        print(f"iris_client: {len(changed)} generated files changed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
