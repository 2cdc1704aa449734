#!/usr/bin/env bash
# Validates openapi.yaml: the OpenAPI 3.1 document itself (openapi-spec-validator), then
# project checks: every endpoint of SPEC §2-§7 is there, every request and response body has
# examples, every example (and parameter example) matches its schema, the problem type URIs
# and the strict request bodies agree with Sources/PermissionWire.
# Usage: scripts/validate-openapi.sh [path/to/openapi.yaml]   (exit status 0 = valid)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
spec="${1:-$root/openapi.yaml}"

if ! python3 -c "import openapi_spec_validator" 2>/dev/null; then
    echo "installing openapi-spec-validator" >&2
    python3 -m pip install --quiet openapi-spec-validator
fi

python3 - "$spec" "$root/Sources/PermissionWire" <<'PY'
import re, sys, pathlib, copy
from openapi_spec_validator import validate
from openapi_spec_validator.readers import read_from_filename
from openapi_schema_validator import OAS31Validator

spec_path, wire_dir = sys.argv[1], pathlib.Path(sys.argv[2])
spec, _ = read_from_filename(spec_path)
validate(spec)
print(f"{spec_path}: valid OpenAPI {spec['openapi']}")

errors = []

# 1. The endpoints, exactly as listed for the service.
expected = {
    "/v1/services": {"get"}, "/v1/services/{service}": {"get", "put"},
    "/v1/apps": {"get"}, "/v1/apps/{app}": {"get", "put"},
    "/v1/users/{user}/authorizations": {"get"},
    "/v1/apps/{app}/services/{service}/users": {"get"},
    "/v1/apps/{app}/purpose-changed": {"get"},
    "/v1/users/{user}/apps/{app}/authorizations/{service}": {"get", "put"},
    "/v1/users/{user}/apps/{app}/authorizations/{service}/request": {"post"},
    "/v1/users/{user}/apps/{app}/authorizations/{service}/button": {"post"},
    "/v1/users/{user}/apps/{app}/authorizations/{service}/revoke": {"post"},
    "/v1/users/{user}/prompts": {"get"}, "/v1/prompts/{id}": {"get"},
    "/v1/prompts/{id}/decision": {"post"},
    "/v1/users/{user}/apps/{app}/lifecycle": {"post"},
    "/v1/users/{user}/settings": {"get", "put"}, "/v1/users/{user}/export": {"get"},
    "/v1/policies": {"get"}, "/v1/policies/{id}": {"get", "put", "delete"},
    "/v1/reset": {"post"}, "/v1/audit": {"get"}, "/v1/audit/verify": {"get"},
    "/v1/events": {"get"}, "/v1/keys": {"get", "post"}, "/v1/keys/{id}": {"get", "delete"},
    "/v1/users/{user}/consent-sessions": {"post"}, "/v1/consent-sessions/{id}": {"get", "delete"},
    "/v1/users/{user}": {"delete"},
    "/healthz": {"get"}, "/readyz": {"get"}, "/openapi.yaml": {"get"}, "/metrics": {"get"},
    "/access/v1/evaluation": {"post"}, "/access/v1/evaluations": {"post"},
    "/.well-known/authzen-configuration": {"get"},
}
methods = {"get", "put", "post", "delete", "patch", "head", "options", "trace"}
actual = {p: {m for m in item if m in methods} for p, item in spec["paths"].items()}
if actual != expected:
    for p in sorted(set(actual) | set(expected)):
        if actual.get(p) != expected.get(p):
            errors.append(f"path {p}: methods {sorted(actual.get(p, []))}, expected {sorted(expected.get(p, []))}")

# 2. Security: bearer everywhere except the open endpoints.
if spec.get("security") != [{"bearer": []}]:
    errors.append("global security must be bearer")
for p in ("/healthz", "/readyz"):
    if spec["paths"][p]["get"].get("security") != []:
        errors.append(f"{p} must be open (security: [])")

def resolve(node):
    while isinstance(node, dict) and "$ref" in node:
        ref = node["$ref"]
        target = spec
        for token in ref.lstrip("#/").split("/"):
            target = target[token.replace("~1", "/").replace("~0", "~")]
        node = target
    return node

def pointer(*tokens):
    return "#/" + "/".join(str(t).replace("~", "~0").replace("/", "~1") for t in tokens)

def check_example(value, schema_pointer, where):
    root = copy.deepcopy(spec)
    root["$ref"] = schema_pointer
    validator = OAS31Validator(root)
    for error in validator.iter_errors(value):
        errors.append(f"{where}: example does not match its schema: {error.message} at {list(error.absolute_path)}")

# 3. Every body has examples, and every example matches its schema.
def check_content(content, base, where, json_only_schema=True):
    for media, media_obj in content.items():
        examples = media_obj.get("examples") or ({"example": {"value": media_obj["example"]}} if "example" in media_obj else {})
        if not examples:
            errors.append(f"{where} {media}: no examples")
        if "schema" not in media_obj:
            errors.append(f"{where} {media}: no schema")
            continue
        if "json" not in media:
            continue
        for name, example in examples.items():
            example = resolve(example)
            if "value" in example:
                check_example(example["value"], pointer(*base, media, "schema"), f"{where} {media} example {name}")

for p, item in spec["paths"].items():
    shared = item.get("parameters", [])
    for m, op in item.items():
        if m not in methods:
            continue
        where = f"{m.upper()} {p}"
        params = [resolve(x) for x in shared + op.get("parameters", [])]
        declared = {x["name"] for x in params if x["in"] == "path"}
        wanted = set(re.findall(r"{([^}]+)}", p))
        if declared != wanted:
            errors.append(f"{where}: path parameters {sorted(declared)}, expected {sorted(wanted)}")
        for x in params:
            if "example" not in x:
                errors.append(f"{where}: parameter {x['name']} has no example")
        if "requestBody" in op:
            body = resolve(op["requestBody"])
            check_content(body["content"], ["paths", p, m, "requestBody", "content"], f"{where} request")
            codes = set(op["responses"])
            for code in ("400", "413", "415"):
                if code not in codes:
                    errors.append(f"{where}: a body can fail with {code}, not described")
        if "operationId" not in op:
            errors.append(f"{where}: no operationId")
        for code, response in op["responses"].items():
            ref = response.get("$ref")
            base = ["components", "responses", ref.split("/")[-1]] if ref else ["paths", p, m, "responses", code]
            response = resolve(response)
            if "content" in response:
                check_content(response["content"], base + ["content"], f"{where} {code}")
            elif code not in ("204", "304"):
                errors.append(f"{where} {code}: no content")
            if code not in ("304",) and "X-Request-Id" not in response.get("headers", {}):
                errors.append(f"{where} {code}: no X-Request-Id header")
            if code.startswith(("4", "5")):
                for media in response.get("content", {}):
                    if media != "application/problem+json":
                        errors.append(f"{where} {code}: errors must be application/problem+json")

for name, response in spec["components"]["responses"].items():
    if "content" in response:
        check_content(response["content"], ["components", "responses", name, "content"], f"response {name}")

# 4. Parameter examples match their schemas.
for name, param in spec["components"]["parameters"].items():
    if "example" in param:
        check_example(param["example"], pointer("components", "parameters", name, "schema"), f"parameter {name}")

# 5. Problem types agree with the Swift ProblemType.
swift = (wire_dir / "ProblemType.swift").read_text()
slugs = set(re.findall(r'case \w+ = "([a-z-]+)"', swift))
uris = set(spec["components"]["schemas"]["ProblemTypeURI"]["enum"])
if {u.rsplit("/", 1)[1] for u in uris} != slugs:
    errors.append(f"problem types differ from ProblemType.swift: {sorted(slugs ^ {u.rsplit('/', 1)[1] for u in uris})}")
bad_prefix = [u for u in uris if not u.startswith("https://permissions.example/problems/")]
if bad_prefix:
    errors.append(f"problem type URIs outside the base: {bad_prefix}")

# 6. Strict request bodies agree with the Swift allowedKeys.
for file in wire_dir.glob("*.swift"):
    match = re.search(r"static let allowedKeys: Set<String> = \[([^\]]*)\]", file.read_text())
    if not match:
        continue
    name = file.stem
    keys = set(re.findall(r'"([^"]+)"', match.group(1)))
    schema = spec["components"]["schemas"].get(name)
    if schema is None:
        errors.append(f"request body {name} has no schema")
        continue
    if schema.get("additionalProperties") is not False:
        errors.append(f"schema {name}: request bodies are strict (additionalProperties: false)")
    if set(schema.get("properties", {})) != keys:
        errors.append(f"schema {name}: properties {sorted(schema.get('properties', {}))}, Swift allows {sorted(keys)}")

if errors:
    for e in errors:
        print("error:", e, file=sys.stderr)
    sys.exit(1)
print(f"{len(spec['paths'])} paths, {len(spec['components']['schemas'])} schemas, "
      f"{len(spec['components']['examples'])} examples, {len(slugs)} problem types: all checks passed")
PY
