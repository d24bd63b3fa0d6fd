#!/usr/bin/env python3
"""Validate deploy/ without Docker daemon, cluster or network (run through scripts/check-deploy).

Checks:
- compose.yaml: YAML, known keys, variables defined in .env.example, depends_on targets and
  conditions (a `service_healthy` target has a health check, in compose or in its Dockerfile),
  named volumes declared, build contexts and Dockerfiles present, a GPU reservation; then
  `docker compose config -q` where the compose plugin is installed.
- k8s/: every file listed in kustomization.yaml exists and every manifest is listed; each
  object against the official JSON schema of Kubernetes (`kubernetes-validate`, strict: unknown
  fields fail); cross-references (secretKeyRef -> Secret key, Service and Deployment selectors
  -> pod labels, named probe ports, a GPU request); `kubectl kustomize` where kubectl is here.
- docker/*.Dockerfile: instruction syntax, stage references, each COPY source exists in the
  repository and is not excluded by .dockerignore, every workspace member is copied, each
  `cargo build -p PKG --bin NAME` names a real [[bin]] of PKG, the entrypoint is the binary
  copied in, a non-root USER.

`--self-test` corrupts copies of deploy/ in a temporary folder, one fault each, and expects
each to fail with the matching message (and the pristine copy to pass).
"""

from __future__ import annotations

import argparse
import fnmatch
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

import yaml

KUBERNETES_VERSION = "1.30.0"

COMPOSE_TOP = {"name", "services", "volumes", "networks", "secrets", "configs", "include"}
COMPOSE_SERVICE = {
    "image", "build", "command", "entrypoint", "environment", "env_file", "ports", "expose",
    "volumes", "depends_on", "healthcheck", "restart", "deploy", "profiles", "networks", "user",
    "working_dir", "labels", "secrets", "configs", "init", "stop_grace_period", "stop_signal",
    "pull_policy", "container_name", "logging", "ulimits", "shm_size", "cap_add", "cap_drop",
    "security_opt", "read_only", "tmpfs", "hostname", "extra_hosts", "runtime", "devices", "gpus",
}
DEPENDS_CONDITIONS = {"service_started", "service_healthy", "service_completed_successfully"}
REQUIRED_SERVICES = {"postgres", "migrate", "server", "worker"}


class Report:
    """Collects failures; a check never stops at the first one."""

    def __init__(self) -> None:
        self.errors: list[str] = []

    def fail(self, where: str, msg: str) -> None:
        self.errors.append(f"{where}: {msg}")


# ---------------------------------------------------------------- Dockerfiles

def dockerfile_instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with continuation lines joined and comments dropped."""
    out: list[tuple[str, str]] = []
    buf = ""
    for line in text.splitlines():
        s = line.strip()
        if not buf and (not s or s.startswith("#")):
            continue
        if buf and s.startswith("#"):
            continue
        if s.endswith("\\"):
            buf += s[:-1] + " "
            continue
        buf += s
        word, _, rest = buf.partition(" ")
        out.append((word.upper(), rest.strip()))
        buf = ""
    if buf:
        out.append(("<UNTERMINATED>", buf))
    return out


def dockerignored(path: str, patterns: list[str]) -> bool:
    first = path.split("/")[0]
    return any(fnmatch.fnmatch(path, p) or fnmatch.fnmatch(first, p) for p in patterns if not p.startswith("!"))


def workspace(repo: Path) -> tuple[list[str], dict[str, tuple[str, set[str]]]]:
    """Workspace member folders, and package name -> (folder, [[bin]] names)."""
    root = tomllib.loads((repo / "Cargo.toml").read_text())
    members = root["workspace"]["members"]
    packages = {}
    for m in members:
        manifest = tomllib.loads((repo / m / "Cargo.toml").read_text())
        name = manifest["package"]["name"]
        bins = {b["name"] for b in manifest.get("bin", [])}
        if (repo / m / "src" / "main.rs").exists():
            bins.add(name)
        packages[name] = (m, bins)
    return members, packages


def check_dockerfile(path: Path, repo: Path, r: Report) -> bool:
    """Returns whether the image has a HEALTHCHECK."""
    where = str(path)
    instrs = dockerfile_instructions(path.read_text())
    known = {"FROM", "RUN", "COPY", "ADD", "ENV", "ARG", "WORKDIR", "USER", "EXPOSE", "VOLUME",
             "ENTRYPOINT", "CMD", "HEALTHCHECK", "LABEL", "STOPSIGNAL", "SHELL", "ONBUILD"}
    ignore_file = repo / ".dockerignore"
    ignores = [l.strip().rstrip("/") for l in ignore_file.read_text().splitlines()
               if l.strip() and not l.startswith("#")] if ignore_file.exists() else []
    members, packages = workspace(repo)
    stages: list[str] = []
    copied_sources: set[str] = set()
    copied_bins: set[str] = set()
    entrypoint = None
    user = None
    healthcheck = False
    for word, args in instrs:
        if word not in known:
            r.fail(where, f"unknown instruction {word} {args[:40]!r}")
            continue
        if word == "FROM":
            m = re.match(r"(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?$", args, re.I)
            if not m:
                r.fail(where, f"cannot read FROM {args!r}")
                continue
            if m.group(1) in stages:
                pass  # FROM an earlier stage
            elif ":" not in m.group(1) and "@" not in m.group(1):
                r.fail(where, f"base image {m.group(1)} has no tag: pin one")
            stages.append(m.group(2) or f"#{len(stages)}")
            user = None
        elif word in ("COPY", "ADD"):
            parts = shlex.split(args)
            flags = [p for p in parts if p.startswith("--")]
            paths = [p for p in parts if not p.startswith("--")]
            if len(paths) < 2:
                r.fail(where, f"{word} needs a source and a destination: {args!r}")
                continue
            src_from = next((f.split("=", 1)[1] for f in flags if f.startswith("--from=")), None)
            if src_from is not None:
                if src_from not in stages:
                    r.fail(where, f"COPY --from={src_from}: no earlier stage of that name")
                dest = paths[-1]
                copied_bins.add(os.path.basename(dest.rstrip("/")) if not dest.endswith("/")
                                else os.path.basename(paths[0]))
                continue
            for src in paths[:-1]:
                rel = src.rstrip("/").removeprefix("./")
                if not (repo / rel).exists():
                    r.fail(where, f"COPY source {src} does not exist in the repository")
                elif dockerignored(rel, ignores):
                    r.fail(where, f"COPY source {src} is excluded by .dockerignore")
                copied_sources.add(rel)
        elif word == "RUN":
            for m in re.finditer(r"cargo build\b([^&;|]*)", args):
                toks = m.group(1).split()
                pkg = next((toks[i + 1] for i, t in enumerate(toks[:-1]) if t in ("-p", "--package")), None)
                bins = [toks[i + 1] for i, t in enumerate(toks[:-1]) if t == "--bin"]
                if pkg is None:
                    r.fail(where, "cargo build without -p PKG builds the whole workspace")
                elif pkg not in packages:
                    r.fail(where, f"cargo build -p {pkg}: no workspace package of that name ({', '.join(sorted(packages))})")
                else:
                    for b in bins:
                        if b not in packages[pkg][1]:
                            r.fail(where, f"--bin {b} is not a [[bin]] of package {pkg} ({', '.join(sorted(packages[pkg][1]))})")
        elif word == "USER":
            user = args.split(":")[0]
        elif word == "ENTRYPOINT":
            try:
                entrypoint = yaml.safe_load(args) if args.startswith("[") else args.split()
            except yaml.YAMLError:
                r.fail(where, f"ENTRYPOINT is not a JSON array: {args!r}")
        elif word == "HEALTHCHECK":
            healthcheck = args.strip().upper() != "NONE"
        elif word == "<UNTERMINATED>":
            r.fail(where, "the last instruction ends with a line continuation")
    if len(stages) < 2:
        r.fail(where, "expected a multi-stage build (a builder and a slim runtime)")
    if copied_sources:
        for m in members:
            if m not in copied_sources:
                r.fail(where, f"workspace member {m} is not copied: cargo cannot read the workspace without it")
    if user in (None, "root", "0"):
        r.fail(where, "the final stage runs as root: add a USER")
    if entrypoint and entrypoint[0] not in copied_bins and not entrypoint[0].startswith("/"):
        r.fail(where, f"ENTRYPOINT {entrypoint[0]} is not a binary copied from the build stage")
    return healthcheck


# ---------------------------------------------------------------- compose

def check_compose(d: Path, repo: Path, r: Report, healthchecked: dict[Path, bool]) -> None:
    path = d / "compose.yaml"
    where = str(path)
    text = path.read_text()
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as e:
        r.fail(where, f"not YAML: {e}")
        return
    if not isinstance(doc, dict) or not isinstance(doc.get("services"), dict):
        r.fail(where, "no services mapping")
        return
    for k in doc:
        if k not in COMPOSE_TOP and not k.startswith("x-"):
            r.fail(where, f"unknown top-level key {k!r}")
    env_example = d / ".env.example"
    defined = set()
    if env_example.exists():
        defined = {l.split("=", 1)[0].strip() for l in env_example.read_text().splitlines()
                   if "=" in l and not l.lstrip().startswith("#")}
    for m in re.finditer(r"(?<!\$)\$\{([A-Za-z_][A-Za-z0-9_]*)(:?[-?+])?", text):
        var, op = m.group(1), m.group(2)
        if op in (None, "?", ":?") and var not in defined:
            r.fail(where, f"${{{var}}} has no default and is not in .env.example")
    services = doc["services"]
    missing = REQUIRED_SERVICES - services.keys()
    if missing:
        r.fail(where, f"missing services: {', '.join(sorted(missing))}")
    volumes = set((doc.get("volumes") or {}).keys())
    gpu = False
    for name, svc in services.items():
        w = f"{where}: service {name}"
        if not isinstance(svc, dict):
            r.fail(w, "not a mapping")
            continue
        for k in svc:
            if k not in COMPOSE_SERVICE and not k.startswith("x-"):
                r.fail(w, f"unknown key {k!r}")
        if "image" not in svc and "build" not in svc:
            r.fail(w, "needs image or build")
        build = svc.get("build")
        if isinstance(build, str):
            build = {"context": build}
        if isinstance(build, dict):
            ctx = (path.parent / build.get("context", ".")).resolve()
            dockerfile = ctx / build.get("dockerfile", "Dockerfile")
            if not dockerfile.exists():
                r.fail(w, f"Dockerfile {dockerfile} does not exist")
        dep = svc.get("depends_on") or {}
        if isinstance(dep, list):
            dep = {x: {"condition": "service_started"} for x in dep}
        for target, spec in dep.items():
            if target not in services:
                r.fail(w, f"depends_on {target}: no such service")
                continue
            cond = (spec or {}).get("condition", "service_started")
            if cond not in DEPENDS_CONDITIONS:
                r.fail(w, f"depends_on {target}: unknown condition {cond!r}")
            if cond == "service_healthy" and not has_healthcheck(services[target], path.parent, healthchecked):
                r.fail(w, f"depends_on {target} being healthy, but {target} has no health check")
        for v in svc.get("volumes") or []:
            src = v.split(":")[0] if isinstance(v, str) else (v or {}).get("source", "")
            if src and not src.startswith((".", "/", "~", "$")) and src not in volumes:
                r.fail(w, f"named volume {src} is not declared under top-level volumes")
        for dev in (((svc.get("deploy") or {}).get("resources") or {}).get("reservations") or {}).get("devices") or []:
            if dev.get("driver") == "nvidia" and "gpu" in (dev.get("capabilities") or []):
                gpu = True
    if not gpu:
        r.fail(where, "no service reserves an NVIDIA GPU (deploy.resources.reservations.devices)")
    compose_cli(d, r)


def has_healthcheck(svc: dict, base: Path, healthchecked: dict[Path, bool]) -> bool:
    hc = svc.get("healthcheck")
    if hc is not None:
        return not hc.get("disable", False)
    build = svc.get("build")
    if isinstance(build, dict):
        df = ((base / build.get("context", ".")) / build.get("dockerfile", "Dockerfile")).resolve()
        return healthchecked.get(df, False)
    return False


_COMPOSE_CLI: list[bool] = []


def compose_cli(d: Path, r: Report) -> None:
    """`docker compose config -q` where the plugin exists (the docker CLI alone has no compose)."""
    if not _COMPOSE_CLI:
        ok = shutil.which("docker") is not None and subprocess.run(
            ["docker", "compose", "version"], capture_output=True).returncode == 0
        _COMPOSE_CLI.append(ok)
        if not ok:
            print("check-deploy: no `docker compose` here; compose.yaml checked structurally only")
    if not _COMPOSE_CLI[0]:
        return
    p = subprocess.run(["docker", "compose", "--env-file", str(d / ".env.example"), "-f",
                        str(d / "compose.yaml"), "config", "-q"], capture_output=True, text=True)
    if p.returncode != 0:
        r.fail(str(d / "compose.yaml"), f"docker compose config: {p.stderr.strip()}")


# ---------------------------------------------------------------- Kubernetes

def check_k8s(d: Path, r: Report) -> None:
    import kubernetes_validate

    k = d / "k8s"
    kpath = k / "kustomization.yaml"
    try:
        kust = yaml.safe_load(kpath.read_text())
    except yaml.YAMLError as e:
        r.fail(str(kpath), f"not YAML: {e}")
        return
    listed = kust.get("resources") or []
    for f in listed:
        if not (k / f).exists():
            r.fail(str(kpath), f"resource {f} does not exist")
    for f in sorted(k.glob("*.yaml")):
        if f.name != "kustomization.yaml" and f.name not in listed:
            r.fail(str(kpath), f"{f.name} is not listed under resources")
    objects: list[tuple[str, dict]] = []
    for f in listed:
        p = k / f
        if not p.exists():
            continue
        try:
            docs = [x for x in yaml.safe_load_all(p.read_text()) if x is not None]
        except yaml.YAMLError as e:
            r.fail(str(p), f"not YAML: {e}")
            continue
        for obj in docs:
            w = f"{p}: {obj.get('kind', '?')}/{(obj.get('metadata') or {}).get('name', '?')}"
            try:
                kubernetes_validate.validate(obj, KUBERNETES_VERSION, strict=True)
            except kubernetes_validate.ValidationError as e:
                loc = ".".join(str(x) for x in e.path)
                r.fail(w, f"Kubernetes {KUBERNETES_VERSION} schema: {loc}: {e.message}")
                continue
            except (kubernetes_validate.SchemaNotFoundError, KeyError) as e:
                r.fail(w, f"no schema: {e}")
                continue
            objects.append((w, obj))
    cross_references(objects, r)
    kubectl = shutil.which("kubectl")
    if kubectl and not r.errors:
        p = subprocess.run([kubectl, "kustomize", str(k)], capture_output=True, text=True)
        if p.returncode != 0:
            r.fail(str(kpath), f"kubectl kustomize: {p.stderr.strip()}")


def pod_specs(obj: dict) -> dict | None:
    if obj.get("kind") in ("Deployment", "Job", "StatefulSet", "DaemonSet"):
        return obj["spec"]["template"]
    return None


def cross_references(objects: list[tuple[str, dict]], r: Report) -> None:
    secrets = {o["metadata"]["name"]: set((o.get("stringData") or {}) | (o.get("data") or {}))
               for _, o in objects if o["kind"] == "Secret"}
    pods = []
    gpu = False
    for w, o in objects:
        tmpl = pod_specs(o)
        if tmpl is None:
            continue
        labels = (tmpl.get("metadata") or {}).get("labels") or {}
        pods.append(labels)
        sel = ((o["spec"].get("selector") or {}).get("matchLabels")) or {}
        if o["kind"] != "Job" and any(labels.get(a) != b for a, b in sel.items()):
            r.fail(w, f"selector {sel} does not match the pod labels {labels}")
        for c in tmpl["spec"]["containers"]:
            ports = {p.get("name") for p in c.get("ports") or []}
            for e in c.get("env") or []:
                ref = (e.get("valueFrom") or {}).get("secretKeyRef")
                if ref and ref["name"] not in secrets:
                    r.fail(w, f"env {e['name']}: Secret {ref['name']} is not among the manifests")
                elif ref and ref["key"] not in secrets[ref["name"]]:
                    r.fail(w, f"env {e['name']}: Secret {ref['name']} has no key {ref['key']}")
            for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
                port = ((c.get(probe) or {}).get("httpGet") or {}).get("port")
                if isinstance(port, str) and port not in ports:
                    r.fail(w, f"{probe} uses port {port!r}, which the container does not name")
            if "nvidia.com/gpu" in ((c.get("resources") or {}).get("limits") or {}):
                gpu = True
    for w, o in objects:
        if o["kind"] == "Service":
            sel = o["spec"].get("selector") or {}
            if not any(all(l.get(a) == b for a, b in sel.items()) for l in pods):
                r.fail(w, f"selector {sel} matches no pod template")
    if not gpu:
        r.fail("k8s", "no container requests nvidia.com/gpu")


# ---------------------------------------------------------------- driver

def check(d: Path, repo: Path) -> list[str]:
    r = Report()
    healthchecked = {}
    for df in sorted((d / "docker").glob("*.Dockerfile")):
        healthchecked[df.resolve()] = check_dockerfile(df, repo, r)
    if not healthchecked:
        r.fail(str(d / "docker"), "no *.Dockerfile")
    check_compose(d, repo, r, healthchecked)
    check_k8s(d, r)
    return r.errors


# (file under deploy/, text to find, replacement, expected message fragment)
FAULTS = [
    ("k8s/worker.yaml", "replicas: 1", "replicas: one", "schema"),
    ("k8s/server.yaml", "readinessProbe:", "readinesProbe:", "schema"),
    ("k8s/kustomization.yaml", "  - worker.yaml", "  - workers.yaml", "does not exist"),
    ("k8s/server.yaml", "key: DATABASE_URL", "key: DATABASE_URI", "has no key"),
    ("k8s/server.yaml", "port: http\n            periodSeconds: 5", "port: web\n            periodSeconds: 5", "does not name"),
    ("k8s/worker.yaml", "nvidia.com/gpu: 1", "cpu: 1", "nvidia.com/gpu"),
    ("compose.yaml", "condition: service_completed_successfully", "condition: service_done", "unknown condition"),
    ("compose.yaml", "      migrate:\n        condition", "      migrat:\n        condition", "no such service"),
    ("compose.yaml", "    restart: \"no\"", "    restart: \"no\n", "not YAML"),
    ("compose.yaml", "    depends_on:\n      postgres:\n        condition: service_healthy\n    restart: \"no\"",
     "    depends_on:\n      postgres:\n        condition: service_healthy\n    restarts: \"no\"", "unknown key"),
    ("compose.yaml", "- worker-data:/var/lib/ptxfuzz", "- workerdata:/var/lib/ptxfuzz", "not declared"),
    ("compose.yaml", "driver: nvidia", "driver: amd", "GPU"),
    ("compose.yaml", "${POSTGRES_PASSWORD:?", "${PG_PASSWORD:?", ".env.example"),
    ("docker/server.Dockerfile", "COPY migrations migrations", "COPY migration migrations", "does not exist"),
    ("docker/server.Dockerfile", "COPY worker worker\n", "", "not copied"),
    ("docker/server.Dockerfile", "--bin ptxfuzz-server", "--bin ptxfuzz-srv", "[[bin]]"),
    ("docker/worker.Dockerfile", "-p worker --bin", "-p workers --bin", "no workspace package"),
    ("docker/server.Dockerfile", "HEALTHCHECK", "# HEALTHCHECK", "no health check"),
    ("docker/worker.Dockerfile", "USER 10001:10001", "USER root", "root"),
]


def self_test(d: Path, repo: Path) -> int:
    failures = 0
    with tempfile.TemporaryDirectory(prefix="check-deploy-") as tmp:
        shadow = Path(tmp) / "repo"
        shadow.mkdir()
        # A repository whose deploy/ is a copy we may corrupt; the rest links to the real one.
        for entry in repo.iterdir():
            if entry.name not in (d.name, ".git", "target"):
                (shadow / entry.name).symlink_to(entry)
        copy = shadow / d.name

        def fresh() -> None:
            if copy.exists():
                shutil.rmtree(copy)
            shutil.copytree(d, copy)

        fresh()
        errors = check(copy, shadow)
        print(f"self-test: pristine copy {'passes' if not errors else 'FAILS'}")
        if errors:
            failures += 1
            print("\n".join("  " + e for e in errors))
        for rel, old, new, expect in FAULTS:
            fresh()
            f = copy / rel
            text = f.read_text()
            if old not in text:
                print(f"self-test: FAULT NOT APPLIED: {rel}: {old!r} not found (update FAULTS)")
                failures += 1
                continue
            f.write_text(text.replace(old, new, 1))
            errors = check(copy, shadow)
            ok = any(expect in e for e in errors)
            print(f"self-test: {rel}: {old.splitlines()[0].strip()!r} -> {new.splitlines()[0].strip() if new else '(removed)'!r}: "
                  f"{'caught' if ok else 'NOT CAUGHT'}" + (f" ({errors[0] if errors else 'no error'})" if not ok else ""))
            failures += not ok
    print(f"{len(FAULTS) + 1 - failures} passed, {failures} failed")
    return 1 if failures else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", nargs="?", help="the deploy folder (default: deploy/ of the repository)")
    ap.add_argument("--repo", help="repository root (default: the parent of the deploy folder)")
    ap.add_argument("--self-test", action="store_true", help="check that corrupted copies fail")
    a = ap.parse_args()
    here = Path(__file__).resolve().parent.parent
    d = Path(a.dir).resolve() if a.dir else here / "deploy"
    repo = Path(a.repo).resolve() if a.repo else d.parent
    if a.self_test:
        return self_test(d, repo)
    errors = check(d, repo)
    for e in errors:
        print(f"check-deploy: {e}", file=sys.stderr)
    if errors:
        print(f"check-deploy: {len(errors)} problem(s) in {d}", file=sys.stderr)
        return 1
    print(f"check-deploy: {d} is valid (compose, Dockerfiles, Kubernetes {KUBERNETES_VERSION} schemas)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
