#!/usr/bin/env bash
# Checks the container images without a container engine: the packages each Dockerfile's
# runtime stage installs must be enough for the binaries it ships to run.
#
# usage: scripts/check-images.sh [--bin DIR] [--dockerfile FILE]...
#   --bin DIR         binaries to check (default: a release build made here with
#                     `make BUILD=build/images all`, i.e. exactly what the build stage runs;
#                     a sanitizer build would pull in libasan, which the images never contain)
#   --dockerfile F    check only this Dockerfile (repeatable; default images/*.Dockerfile)
#   --rootfs          also RUN each binary: a throwaway root filesystem gets the files of the
#                     listed packages and their dependencies only (from this machine's dpkg
#                     database, same Debian release), ld.so.cache is built for it, and each
#                     binary runs there under chroot as uid 65532 (root needed)
#
# For each Dockerfile:
#   - it is multi-stage and its last stage runs as a non-root numeric USER;
#   - the runtime stage: the last one, or, when the last is FROM scratch, the stage whose /rootfs
#     it copies (images/rootfs.sh assembles it there from that stage's installed packages);
#   - the runtime stage's `apt-get install` list is parsed (ARG defaults substituted, e.g.
#     postgresql-client-${PG_MAJOR} -> postgresql-client-15);
#   - the binaries it COPYs from the build stage (<bin>/<name>) and the tools it runs
#     (pgbench unpacked from its .deb, fio installed) are located here;
#   - every `ldd` dependency of each of them must resolve to a file that `dpkg -S` says belongs
#     to a listed package or to one of their dependencies (`apt-cache depends --recurse`), or to
#     libc6 (in every Debian image);
#   - each tool itself must belong to a package the Dockerfile installs (or downloads and
#     unpacks in a build stage, for pgbench); one built from source in a stage (fio) is listed as
#     such: the image build checks its libraries (rootfs.sh) and e2e 74 runs it.
# Prints a table (image, binary, library, package, reached through) and exits 1 on any miss.
# Debian 12 here and in the images: the same release, so the same sonames and packages.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
BINDIR=""
ROOTFS=0
DOCKERFILES=()
while [ $# -gt 0 ]; do
    case "$1" in
    --bin) BINDIR="$2"; shift 2 ;;
    --dockerfile) DOCKERFILES+=("$2"); shift 2 ;;
    --rootfs) ROOTFS=1; shift ;;
    -h | --help) sed -n '2,28p' "$0"; exit 0 ;;
    *) echo "check-images: unknown argument $1" >&2; exit 2 ;;
    esac
done
[ ${#DOCKERFILES[@]} -gt 0 ] || DOCKERFILES=(images/*.Dockerfile)
if [ -z "$BINDIR" ]; then
    make -s BUILD=build/images all >&2 || { echo "check-images: release build failed" >&2; exit 2; }
    BINDIR=build/images/bin
fi
for cmd in ldd dpkg apt-cache python3; do
    command -v "$cmd" >/dev/null || { echo "check-images: $cmd not found" >&2; exit 2; }
done
# apt-cache needs package lists; fetch them once when they are missing (root only)
if ! apt-cache show libc6 >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    apt-get update -qq >&2
fi

export CHECK_ROOTFS="$ROOTFS"
exec python3 - "$BINDIR" "${DOCKERFILES[@]}" <<'PY'
import os, re, shutil, subprocess, sys

bindir, dockerfiles = sys.argv[1], sys.argv[2:]
BASE = {"libc6"}  # in every Debian image (essential)

def sh(*cmd):
    return subprocess.run(cmd, capture_output=True, text=True)

def parse_dockerfile(path):
    text = open(path).read()
    text = re.sub(r"\\\n", " ", text)  # join continuation lines
    lines = [l.strip() for l in text.split("\n") if l.strip() and not l.strip().startswith("#")]
    args, stages = {}, []
    for l in lines:
        word, _, rest = l.partition(" ")
        word = word.upper()
        if word == "ARG":
            name, _, val = rest.partition("=")
            if val or name.strip() not in args:
                args[name.strip()] = val.strip().strip('"')
        elif word == "FROM":
            m = re.search(r"\s+AS\s+(\S+)\s*$", rest, re.I)
            stages.append({"from": rest, "name": m.group(1) if m else None, "lines": []})
        elif stages:
            stages[-1]["lines"].append((word, rest))
    return args, stages

def subst(s, args):
    return re.sub(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?", lambda m: args.get(m.group(1), m.group(0)), s)

def installed_packages(stage, args):
    pkgs = []
    for word, rest in stage["lines"]:
        if word != "RUN":
            continue
        # only the last `apt-get install` of each RUN counts as the runtime list when the RUN
        # installs tools temporarily first (they are purged again)
        for m in re.finditer(r"apt-get\s+install\s+([^;&|]*)", rest):
            words = [subst(w, args) for w in m.group(1).split()]
            pkgs.append([w for w in words if not w.startswith("-")])
    purged = set()
    for word, rest in stage["lines"]:
        if word == "RUN":
            for m in re.finditer(r"apt-get\s+(?:purge|remove)\s+([^;&|]*)", rest):
                purged |= {w for w in m.group(1).split() if not w.startswith("-")}
    out = []
    for group in pkgs:
        out += [p for p in group if p not in purged]
    return sorted(set(out))

closure_cache = {}
def closure(pkg):
    if pkg in closure_cache:
        return closure_cache[pkg]
    names = set()
    # Depends and Pre-Depends, recursively; alternatives and virtual packages are listed too
    r2 = sh("apt-cache", "depends", "--recurse", "--no-recommends", "--no-suggests", "--no-conflicts",
            "--no-breaks", "--no-replaces", "--no-enhances", pkg)
    if r2.returncode == 0:
        for l in r2.stdout.split("\n"):
            if l and not l.startswith(" "):
                names.add(l.strip().strip("<>").split(":")[0])
    closure_cache[pkg] = names
    return names

owner_cache = {}
def owner(path):
    """Package owning a file, trying the usrmerge aliases dpkg may have registered."""
    cands = [path, os.path.realpath(path)]
    for p in list(cands):
        for a, b in (("/usr/lib/", "/lib/"), ("/lib/", "/usr/lib/"), ("/usr/bin/", "/bin/"), ("/bin/", "/usr/bin/")):
            if p.startswith(a):
                cands.append(b + p[len(a):])
    for p in cands:
        if p in owner_cache:
            return owner_cache[p]
        r = sh("dpkg", "-S", p)
        if r.returncode == 0:
            pkg = r.stdout.split(":")[0].split(",")[0].strip()
            owner_cache[path] = pkg
            return pkg
    return None

def ldd(path):
    r = sh("ldd", path)
    deps, missing = [], []
    for l in r.stdout.split("\n"):
        l = l.strip()
        if not l or "linux-vdso" in l:
            continue
        if "=> not found" in l:
            missing.append(l.split()[0])
        elif "=>" in l:
            lib, _, rest = l.partition("=>")
            deps.append((lib.strip(), rest.split("(")[0].strip()))
        elif l.startswith("/"):
            deps.append((os.path.basename(l.split()[0]), l.split()[0]))
    return deps, missing

rows, misses = [], 0
images = []
def row(*cols):
    rows.append(cols)

for df in dockerfiles:
    image = os.path.basename(df).replace(".Dockerfile", "")
    args, stages = parse_dockerfile(df)
    if len(stages) < 2:
        row(image, "-", "-", "-", "MISS: not multi-stage"); misses += 1
    final = stages[-1]
    users = [rest for w, rest in final["lines"] if w == "USER"]
    if not users or not re.match(r"^[1-9][0-9]*(:[0-9]+)?$", users[-1]):
        row(image, "-", "-", "-", f"MISS: runtime stage must end as a numeric non-root USER, got {users}"); misses += 1
    # FROM scratch: the image is the root filesystem a named stage assembled (images/rootfs.sh)
    # from its installed packages; that stage's package list and binaries are the ones to check
    if final["from"].split()[0] == "scratch":
        srcs = [re.search(r"--from=(\S+)", rest).group(1) for w, rest in final["lines"]
                if w == "COPY" and "--from=" in rest]
        named = {s["name"]: s for s in stages if s["name"]}
        if len(srcs) != 1 or srcs[0] not in named:
            row(image, "-", "-", "-", f"MISS: a FROM scratch stage must copy one stage's root filesystem, got {srcs}"); misses += 1
        else:
            final = named[srcs[0]]
    listed = installed_packages(final, args)
    allowed = {}
    for p in listed:
        if sh("apt-cache", "show", p).returncode != 0:
            row(image, "-", "-", p, "MISS: listed package unknown to apt"); misses += 1
            continue
        for d in closure(p):
            allowed.setdefault(d, p)
    for b in BASE:
        allowed.setdefault(b, "base image")
    # what the image runs: our binaries copied from the build stage, executables copied out of
    # packages unpacked in another stage (pgbench), and executables of listed packages (fio)
    downloaded = set()
    for st in stages:
        for w, rest in st["lines"]:
            if w == "RUN":
                for m in re.finditer(r"apt-get\s+download\s+([^;&|]*)", rest):
                    downloaded |= {subst(x, args).strip('"') for x in m.group(1).split() if not x.startswith("-")}
    targets = []
    named = {s["name"]: s for s in stages if s["name"]}
    for w, rest in final["lines"]:
        if w == "COPY" and "--from=" in rest:
            name = os.path.basename(rest.split()[-2])
            src = named.get(re.search(r"--from=(\S+)", rest).group(1))
            if src and any(w2 == "RUN" and re.search(r"apt-get\s+source", r2) for w2, r2 in src["lines"]):
                # built from Debian's source in that stage (fio): not on this machine; the image
                # build's images/rootfs.sh fails on a library it cannot resolve, e2e 74 runs it
                row(image, name, "(executable)", f"source, stage {src['name']}", "built in the image; checked there")
                continue
            if os.path.exists(os.path.join(bindir, name)):
                targets.append(("binary", os.path.join(bindir, name), None))
            else:
                major = args.get("PG_MAJOR", "")
                host = f"/usr/lib/postgresql/{major}/bin/{name}"
                if not os.path.exists(host):
                    host = shutil.which(name) or name
                targets.append(("unpacked", host, downloaded))
    for p in listed:
        exe = shutil.which(p)
        if exe and owner(exe) == p:
            targets.append(("tool", exe, set(listed)))
    if not targets:
        row(image, "-", "-", "-", "MISS: no binaries found in the runtime stage"); misses += 1
    images.append((image, listed, targets))
    for kind, path, sources in targets:
        name = os.path.basename(path)
        if not os.path.exists(path):
            row(image, name, "-", "-", f"MISS: {path} does not exist (build it first)"); misses += 1
            continue
        if kind != "binary":
            pkg = owner(path)
            how = "listed" if kind == "tool" else "unpacked in a build stage"
            if pkg not in sources:
                row(image, name, "(executable)", pkg or "?", f"MISS: not from a package the Dockerfile {'installs' if kind == 'tool' else 'downloads'}"); misses += 1
            else:
                row(image, name, "(executable)", pkg, how)
        deps, missing = ldd(path)
        for m in missing:
            row(image, name, m, "?", "MISS: not found by ldd here"); misses += 1
        for lib, libpath in deps:
            pkg = owner(libpath)
            if pkg is None:
                row(image, name, lib, "?", f"MISS: {libpath} belongs to no package"); misses += 1
            elif pkg in listed:
                row(image, name, lib, pkg, "listed")
            elif pkg in allowed:
                row(image, name, lib, pkg, f"dependency of {allowed[pkg]}")
            else:
                row(image, name, lib, pkg, "MISS: not installed by the Dockerfile"); misses += 1


def installed(pkg):
    r = sh("dpkg-query", "-W", "-f=${Status}", pkg)
    return r.returncode == 0 and "install ok installed" in r.stdout

SKIP_PREFIXES = ("/usr/share/doc", "/usr/share/man", "/usr/share/locale", "/usr/share/info",
                 "/usr/share/lintian", "/usr/share/bug")

def build_rootfs(root, packages):
    import shutil as sh_
    for d in ("usr/bin", "usr/sbin", "usr/lib", "usr/lib64", "usr/local/bin", "etc/ld.so.conf.d", "tmp", "dev"):
        os.makedirs(os.path.join(root, d), exist_ok=True)
    for l in ("bin", "sbin", "lib", "lib64"):  # Debian 12 images are usr-merged
        os.symlink("usr/" + l, os.path.join(root, l))
    with open(os.path.join(root, "etc/ld.so.conf"), "w") as f:
        f.write("include /etc/ld.so.conf.d/*.conf\n")  # as libc-bin ships it
    nfiles = 0
    for pkg in sorted(packages):
        r = sh("dpkg", "-L", pkg)
        for path in r.stdout.split("\n"):
            if not path.startswith("/") or path.startswith(SKIP_PREFIXES) or path == "/.":
                continue
            if os.path.isdir(path) and not os.path.islink(path):
                continue
            if not os.path.lexists(path):
                continue
            dst = os.path.join(root, path.lstrip("/"))
            try:
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                if not os.path.lexists(dst):
                    sh_.copy2(path, dst, follow_symlinks=False)
                    nfiles += 1
            except OSError:
                pass
    sh("ldconfig", "-r", root)
    return nfiles

RUN_ARGS = {"pgbench-operator": ["--help"], "pgbench-runner": ["--help"], "pgbench": ["--version"],
            "fio": ["--version"]}

if os.environ.get("CHECK_ROOTFS") == "1":
    import tempfile, shutil as sh_
    if os.geteuid() != 0:
        row("-", "-", "-", "-", "MISS: --rootfs needs root (chroot)"); misses += 1
    for image, listed, targets in images if os.geteuid() == 0 else []:
        pkgs = set()
        for p in listed:
            pkgs |= {d for d in closure(p) if installed(d)}
            pkgs.add(p)
        missing = sorted(p for p in listed if not installed(p))
        for p in missing:
            row(image, "(rootfs)", "-", p, "MISS: listed package not installed here, cannot build the rootfs"); misses += 1
        root = tempfile.mkdtemp(prefix=f"pgbo-rootfs-{image}-")
        try:
            os.chmod(root, 0o755)
            n = build_rootfs(root, pkgs)
            for kind, path, _ in targets:
                name = os.path.basename(path)
                if not os.path.exists(path):
                    continue
                dst = os.path.join(root, "usr/local/bin", name)
                sh_.copy2(path, dst)
                r = subprocess.run(["chroot", "--userspec=65532:65532", root, "/usr/local/bin/" + name]
                                   + RUN_ARGS.get(name, ["--version"]), capture_output=True, text=True, timeout=30)
                out = (r.stdout + r.stderr).strip().replace("\n", " ")
                if r.returncode >= 126 or "error while loading shared libraries" in out or "not found" in out.split(":")[0]:
                    row(image, name, "(runs in rootfs)", f"{len(pkgs)} pkgs", f"MISS: exit {r.returncode}: {out[:160]}"); misses += 1
                else:
                    row(image, name, "(runs in rootfs)", f"{len(pkgs)} pkgs, {n} files", f"ok, exit {r.returncode}: {out[:60]}")
        finally:
            sh_.rmtree(root, ignore_errors=True)

w = [max(len(str(r[i])) for r in rows + [("image", "binary", "library", "package", "reached through")]) for i in range(5)]
fmt = "  ".join("{:<%d}" % x for x in w)
print(fmt.format("image", "binary", "library", "package", "reached through"))
for r in rows:
    print(fmt.format(*r))
print(f"check-images: {len(rows)} rows, {misses} miss(es)")
sys.exit(1 if misses else 0)
PY
