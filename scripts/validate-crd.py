#!/usr/bin/env python3
"""Offline checks of crds/benchmarkrun.yaml, without an API server.

usage: scripts/validate-crd.py [--crd crds/benchmarkrun.yaml] [--dump-defaulted] [FILE.yaml ...]

1. The CRD itself: names, version, status subresource, printer columns that point at fields
   the schema declares, and the structural-schema rules of apiextensions.k8s.io/v1
   (every node typed, no additionalProperties next to properties, nothing but validation inside
   anyOf/allOf/oneOf/not, array items present, list-type map keys required or defaulted,
   metadata restricted, every default valid and pruned against its own schema).
2. Each BenchmarkRun in the FILEs: defaults applied as the API server does, then validated
   against the schema with unknown fields refused (as fieldValidation=Strict would).
   CEL rules are evaluated by scripts/validate-cel.mjs (node), which reads the defaulted
   objects this script prints with --dump-defaulted.

Exit status 0 when everything passes, 1 otherwise; each problem is printed on its own line.
"""
import copy
import json
import re
import sys

import yaml

errors = []


def err(path, msg):
    errors.append(f"{path}: {msg}")


JUNCTORS = ("allOf", "anyOf", "oneOf", "not")
TYPES = {"object", "array", "string", "integer", "number", "boolean"}


def structural(node, path, in_junctor=False):
    """Check the structural-schema rules on one schema node and below."""
    if not isinstance(node, dict):
        err(path, "schema node is not a map")
        return
    int_or_string = node.get("x-kubernetes-int-or-string") is True
    preserve = node.get("x-kubernetes-preserve-unknown-fields") is True
    t = node.get("type")
    if in_junctor:
        for k in ("description", "default", "additionalProperties", "nullable"):
            if k in node:
                err(path, f"'{k}' is not allowed inside allOf/anyOf/oneOf/not")
        # `type` inside a junctor is allowed only for the int-or-string pattern
        if "type" in node and not re.search(r"\.anyOf\[[01]\]$", path):
            err(path, "'type' is not allowed inside allOf/anyOf/oneOf/not")
    else:
        if t is None and not int_or_string and not preserve:
            err(path, "no type (structural schemas need one on every node)")
        if t is not None and t not in TYPES:
            err(path, f"unknown type {t!r}")
        if int_or_string and t is not None:
            err(path, "x-kubernetes-int-or-string must not also set type")
        if int_or_string and "anyOf" in node:
            branches = sorted(b.get("type") for b in node["anyOf"])
            if branches != ["integer", "string"]:
                err(path, "int-or-string anyOf must be [integer, string]")
    if "properties" in node and "additionalProperties" in node:
        err(path, "properties and additionalProperties are mutually exclusive")
    if "additionalProperties" in node and node["additionalProperties"] is not True:
        if node["additionalProperties"] is False:
            err(path, "additionalProperties: false is not allowed in structural schemas")
        else:
            structural(node["additionalProperties"], path + ".additionalProperties", in_junctor)
    if t == "array" and "items" not in node:
        err(path, "array without items")
    if t != "object" and ("properties" in node or "additionalProperties" in node) and not in_junctor:
        err(path, "properties on a non-object")
    for k, v in (node.get("properties") or {}).items():
        structural(v, f"{path}.{k}", in_junctor)
    if "items" in node:
        if isinstance(node["items"], list):
            err(path, "items must be a single schema")
        else:
            structural(node["items"], path + "[]", in_junctor)
    for j in JUNCTORS:
        if j in node:
            subs = node[j] if isinstance(node[j], list) else [node[j]]
            for i, s in enumerate(subs):
                structural(s, f"{path}.{j}[{i}]", True)
    lt = node.get("x-kubernetes-list-type")
    if lt is not None:
        if t != "array":
            err(path, "x-kubernetes-list-type on a non-array")
        elif lt not in ("atomic", "set", "map"):
            err(path, f"bad list type {lt}")
        elif lt == "map":
            items = node.get("items", {})
            keys = node.get("x-kubernetes-list-map-keys") or []
            if items.get("type") != "object" or not keys:
                err(path, "list-type map needs object items and list-map-keys")
            for k in keys:
                kp = (items.get("properties") or {}).get(k)
                if kp is None:
                    err(path, f"list-map key {k} is not a property")
                elif k not in (items.get("required") or []) and "default" not in kp:
                    err(path, f"list-map key {k} must be required or defaulted")
                elif kp.get("type") not in ("string", "integer", "boolean"):
                    err(path, f"list-map key {k} must be scalar")
    for r in node.get("x-kubernetes-validations") or []:
        if not isinstance(r.get("rule"), str) or not r["rule"].strip():
            err(path, "x-kubernetes-validations entry without rule")
        if "message" not in r and "messageExpression" not in r:
            err(path, f"rule without message: {r.get('rule')}")
    for req in node.get("required") or []:
        if req not in (node.get("properties") or {}):
            err(path, f"required field {req} is not declared")
    if "default" in node and not in_junctor:
        d = copy.deepcopy(node["default"])
        d = apply_defaults(node, d)
        validate(node, d, path + "(default)", strict=True)


def is_type(v, t):
    if t == "object":
        return isinstance(v, dict)
    if t == "array":
        return isinstance(v, list)
    if t == "string":
        return isinstance(v, str)
    if t == "boolean":
        return isinstance(v, bool)
    if t == "integer":
        return isinstance(v, int) and not isinstance(v, bool)
    if t == "number":
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    return False


def apply_defaults(schema, obj):
    """Defaulting as the API server does it: missing fields with a default get it, recursively
    (so a parent defaulted to {} gets its children's defaults too)."""
    if isinstance(obj, dict) and schema.get("type") == "object":
        for k, sub in (schema.get("properties") or {}).items():
            if k not in obj and "default" in sub:
                obj[k] = copy.deepcopy(sub["default"])
            if k in obj:
                obj[k] = apply_defaults(sub, obj[k])
        ap = schema.get("additionalProperties")
        if isinstance(ap, dict):
            for k in obj:
                obj[k] = apply_defaults(ap, obj[k])
    elif isinstance(obj, list) and schema.get("type") == "array":
        return [apply_defaults(schema.get("items", {}), x) for x in obj]
    return obj


def validate(schema, v, path, strict=True):
    if v is None:
        if not schema.get("nullable"):
            err(path, "null is not allowed")
        return
    if schema.get("x-kubernetes-int-or-string"):
        if not (is_type(v, "integer") or is_type(v, "string")):
            err(path, f"must be an integer or a string, got {v!r}")
            return
    else:
        t = schema.get("type")
        if t and not is_type(v, t):
            err(path, f"must be {t}, got {type(v).__name__} {v!r}")
            return
    if "enum" in schema and v not in schema["enum"]:
        err(path, f"{v!r} is not one of {schema['enum']}")
    if is_type(v, "number"):
        if "minimum" in schema and v < schema["minimum"]:
            err(path, f"{v} < minimum {schema['minimum']}")
        if "maximum" in schema and v > schema["maximum"]:
            err(path, f"{v} > maximum {schema['maximum']}")
    if isinstance(v, str):
        if "pattern" in schema and not re.search(schema["pattern"], v):
            err(path, f"{v!r} does not match {schema['pattern']}")
        if "minLength" in schema and len(v) < schema["minLength"]:
            err(path, f"shorter than {schema['minLength']}")
        if "maxLength" in schema and len(v) > schema["maxLength"]:
            err(path, f"longer than {schema['maxLength']}")
        if schema.get("format") == "date-time" and not re.match(
            r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$", v
        ):
            err(path, f"{v!r} is not an RFC 3339 date-time")
    if isinstance(v, list):
        if "minItems" in schema and len(v) < schema["minItems"]:
            err(path, f"fewer than {schema['minItems']} items")
        if "maxItems" in schema and len(v) > schema["maxItems"]:
            err(path, f"more than {schema['maxItems']} items")
        items = schema.get("items", {})
        for i, x in enumerate(v):
            validate(items, x, f"{path}[{i}]", strict)
        if schema.get("x-kubernetes-list-type") == "map":
            keys = schema.get("x-kubernetes-list-map-keys", [])
            seen = set()
            for i, x in enumerate(v):
                k = tuple(json.dumps(x.get(kk)) for kk in keys) if isinstance(x, dict) else None
                if k in seen:
                    err(f"{path}[{i}]", f"duplicate entry for list-map keys {keys}")
                seen.add(k)
    if isinstance(v, dict):
        for r in schema.get("required") or []:
            if r not in v:
                err(path, f"required field {r} is missing")
        props = schema.get("properties")
        ap = schema.get("additionalProperties")
        for k, x in v.items():
            if props is not None and k in props:
                validate(props[k], x, f"{path}.{k}", strict)
            elif isinstance(ap, dict):
                validate(ap, x, f"{path}.{k}", strict)
            elif ap is True or schema.get("x-kubernetes-preserve-unknown-fields"):
                pass
            elif props is None and path.endswith(".metadata"):
                pass
            elif strict:
                err(f"{path}.{k}", "unknown field (refused under fieldValidation=Strict)")


def schema_at(schema, jsonpath):
    node = schema
    for part in jsonpath.strip(".").split("."):
        node = (node.get("properties") or {}).get(part)
        if node is None:
            return None
    return node


def undescribed(node, path):
    """Every property has a description, for kubectl explain (metadata may not have one: a
    structural schema allows nothing but its type there)."""
    for k, v in (node.get("properties") or {}).items():
        if k != "metadata" and not v.get("description"):
            err(f"{path}.{k}", "no description (kubectl explain shows nothing)")
        undescribed(v, f"{path}.{k}")
    if isinstance(node.get("items"), dict):
        undescribed(node["items"], path + "[]")
    if isinstance(node.get("additionalProperties"), dict):
        undescribed(node["additionalProperties"], path + "{}")


def check_crd(crd):
    if crd.get("apiVersion") != "apiextensions.k8s.io/v1" or crd.get("kind") != "CustomResourceDefinition":
        err("crd", "not an apiextensions.k8s.io/v1 CustomResourceDefinition")
    spec = crd["spec"]
    names = spec["names"]
    if crd["metadata"]["name"] != f"{names['plural']}.{spec['group']}":
        err("crd.metadata.name", "must be <plural>.<group>")
    want = {"kind": "BenchmarkRun", "plural": "benchmarkruns", "singular": "benchmarkrun"}
    for k, v in want.items():
        if names.get(k) != v:
            err(f"crd.spec.names.{k}", f"want {v}")
    if sorted(names.get("shortNames", [])) != ["bench", "br"]:
        err("crd.spec.names.shortNames", "want [br, bench]")
    if spec["group"] != "pgbench.dev" or spec["scope"] != "Namespaced":
        err("crd.spec", "want group pgbench.dev, Namespaced")
    storage = [v for v in spec["versions"] if v.get("storage")]
    if len(storage) != 1:
        err("crd.spec.versions", "exactly one storage version")
    for ver in spec["versions"]:
        p = f"crd.versions[{ver['name']}]"
        if ver.get("subresources", {}).get("status") != {}:
            err(p, "status subresource missing")
        schema = ver["schema"]["openAPIV3Schema"]
        structural(schema, p + ".schema")
        undescribed(schema, p + ".schema")
        md = (schema.get("properties") or {}).get("metadata")
        if md is not None and set(md) - {"type"}:
            err(p, "metadata may only be typed (restrictions on name/generateName only)")
        cols = [c["name"] for c in ver.get("additionalPrinterColumns", [])]
        for want_col in ["Phase", "Target", "Result", "Age", "Workers", "Clients", "Failed", "Message"]:
            if want_col not in cols:
                err(p, f"printer column {want_col} missing")
        for c in ver.get("additionalPrinterColumns", []):
            if c["jsonPath"].startswith(".metadata."):
                continue
            node = schema_at(schema, c["jsonPath"])
            if node is None:
                err(p, f"printer column {c['name']}: {c['jsonPath']} is not in the schema")
            elif c["type"] in ("integer", "number", "string", "boolean") and node.get("type") != c["type"]:
                err(p, f"printer column {c['name']} type {c['type']} != schema {node.get('type')}")
    return spec["versions"]


def main(argv):
    crd_path = "crds/benchmarkrun.yaml"
    dump = False
    files = []
    it = iter(argv)
    for a in it:
        if a == "--crd":
            crd_path = next(it)
        elif a == "--dump-defaulted":
            dump = True
        else:
            files.append(a)
    with open(crd_path) as f:
        crd = yaml.safe_load(f)
    versions = check_crd(crd)
    schemas = {f"{crd['spec']['group']}/{v['name']}": v["schema"]["openAPIV3Schema"] for v in versions}
    out = []
    nobj = 0
    for fn in files:
        with open(fn) as f:
            docs = [d for d in yaml.safe_load_all(f) if d]
        for i, d in enumerate(docs):
            if d.get("kind") != "BenchmarkRun":
                continue
            nobj += 1
            name = f"{fn}#{d.get('metadata', {}).get('name', i)}"
            schema = schemas.get(d.get("apiVersion"))
            if schema is None:
                err(name, f"apiVersion {d.get('apiVersion')} is not served")
                continue
            obj = apply_defaults(schema, copy.deepcopy(d))
            validate(schema, obj, name, strict=True)
            out.append({"name": name, "object": obj})
    if dump:
        print(json.dumps(out))
    for e in errors:
        print("ERROR " + e, file=sys.stderr)
    if not dump:
        print(f"crd {crd_path}: {'ok' if not errors else 'FAILED'}; {nobj} BenchmarkRun object(s) checked",
              file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
