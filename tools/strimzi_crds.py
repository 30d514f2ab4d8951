"""Validate the generated Strimzi resources (deploy/kubernetes/base/strimzi-*.yaml) against
Strimzi's own CRDs.

The CRDs: Strimzi publishes the generated CustomResourceDefinitions of each release in the
test jar of its API module, `io.strimzi:api:<version>:jar:tests` (crds/v1beta2/*.yaml:
the CRDs that serve v1beta2 as the stored version, and v1; crds/v1/*.yaml: those of v1
alone); the plain `io.strimzi:api` jar holds only the model classes. `make
strimzi-crds` fetches it with Maven into .cache/strimzi/ and checks its SHA-256 (below);
1.2.0's test jar no longer carries them, so the version stays 0.51.0, the last 0.x release,
whose CRDs serve v1beta2 (what our resources use) and v1.

Each resource is checked with jsonschema against the openAPIV3Schema of its kind and
apiVersion, made strict as the API server is in effect: an object schema with
`properties` and neither `additionalProperties` nor `x-kubernetes-preserve-unknown-fields`
is closed (the server prunes an unknown field, at most with a warning: a misspelt `replica`
would be dropped, the topic made with the cluster's default), `nullable` admits null,
`x-kubernetes-int-or-string` an integer or a string.

    python -m tools.strimzi_crds deploy/kubernetes [--jar .cache/strimzi/...jar]
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import yaml

ROOT = Path(__file__).resolve().parents[1]
STRIMZI = "0.51.0"
ARTIFACT = f"io.strimzi:api:{STRIMZI}:jar:tests"
JAR = ROOT / ".cache" / "strimzi" / f"api-{STRIMZI}-tests.jar"
SHA256 = "b99f69303dc507ca505b74345d93f5260621bb084b8b79447f726e54b6e66a1d"
FOLDER = "crds/v1beta2/"  # the CRDs serving v1beta2 (and v1), as a 0.x cluster installs them
GROUP = "kafka.strimzi.io"


def crds(jar: Path = JAR) -> Iterator[dict[str, Any]]:
    digest = hashlib.sha256(jar.read_bytes()).hexdigest()
    if digest != SHA256:
        raise ValueError(f"{jar}: SHA-256 {digest}, not {ARTIFACT}'s {SHA256}")
    with zipfile.ZipFile(jar) as z:
        for name in sorted(z.namelist()):
            if name.startswith(FOLDER) and name.endswith(".yaml"):
                yield yaml.safe_load(z.read(name))


def strict(schema: Any) -> Any:
    """A CRD's structural schema as a JSON Schema (draft 4, OpenAPI 3.0's base) that refuses
    what the API server would prune."""
    if isinstance(schema, list):
        return [strict(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {
        k: strict(v)
        if k in ("items", "not", "additionalProperties")
        else {n: strict(s) for n, s in v.items()}
        if k == "properties"
        else strict(v)
        if k in ("anyOf", "oneOf", "allOf")
        else v
        for k, v in schema.items()
    }
    if out.pop("x-kubernetes-int-or-string", False):
        out.pop("type", None)
        out["anyOf"] = [{"type": "integer"}, {"type": "string"}]
    if out.pop("nullable", False) and "type" in out:
        out["type"] = [out["type"], "null"]
    preserve = out.pop("x-kubernetes-preserve-unknown-fields", False)
    if "properties" in out and "additionalProperties" not in out and not preserve:
        out["additionalProperties"] = False
    for key in [k for k in out if k.startswith("x-kubernetes-")]:
        del out[key]
    return out


def schemas(jar: Path = JAR) -> dict[tuple[str, str], dict[str, Any]]:
    """(kind, apiVersion) -> the strict JSON Schema of that served version."""
    found = {}
    for crd in crds(jar):
        kind = crd["spec"]["names"]["kind"]
        for version in crd["spec"]["versions"]:
            if version.get("served"):
                raw = version["schema"]["openAPIV3Schema"]
                found[kind, f"{crd['spec']['group']}/{version['name']}"] = strict(
                    copy.deepcopy(raw)
                )
    return found


def problems(doc: dict[str, Any], known: dict[tuple[str, str], dict[str, Any]]) -> list[str]:
    """What is wrong with one resource, each as `path: message`; [] when it is valid."""
    key = (doc.get("kind", ""), doc.get("apiVersion", ""))
    if key not in known:
        return [f"no Strimzi CRD serves {key[0]} {key[1]}"]
    validator = jsonschema.Draft4Validator(known[key])
    return [
        f"{'/'.join(str(p) for p in e.absolute_path) or '(root)'}: {e.message}"
        for e in sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
    ]


def resources(folder: Path) -> Iterator[tuple[Path, dict[str, Any]]]:
    for path in sorted(folder.rglob("*.yaml")):
        for doc in yaml.safe_load_all(path.read_text()):
            if isinstance(doc, dict) and str(doc.get("apiVersion", "")).startswith(f"{GROUP}/"):
                yield path, doc


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--jar", type=Path, default=JAR)
    args = parser.parse_args(argv)
    if not args.jar.exists():
        print(f"{args.jar} missing: `make strimzi-crds` fetches {ARTIFACT}", file=sys.stderr)
        return 2
    known = schemas(args.jar)
    bad = checked = 0
    for path, doc in resources(args.folder):
        checked += 1
        for line in problems(doc, known):
            bad += 1
            print(f"{path} {doc['kind']} {doc['metadata']['name']}: {line}", file=sys.stderr)
    if bad:
        print(
            f"{bad} problems in {checked} Strimzi resources (Strimzi {STRIMZI}'s CRDs)",
            file=sys.stderr,
        )
        return 1
    if checked == 0:
        print(f"no Strimzi resources under {args.folder}", file=sys.stderr)
        return 1
    print(f"{checked} Strimzi resources valid against Strimzi {STRIMZI}'s CRDs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
