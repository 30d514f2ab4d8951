#!/usr/bin/env bash
# Build the okey101 OCI image without a Docker daemon and without an image registry
# (`make image`). Needs root (debootstrap and chroot), debootstrap and podman
# (`apt-get install debootstrap podman`), and Debian's package mirror and PyPI.
#
#   1. base: `debootstrap --variant=minbase` a Debian bookworm rootfs with python3 (no
#      compiler, no pip), cached in .cache/image/base-* (the slow step, about 2 minutes);
#   2. wheels: the project's wheel (hatchling), its compiled core's (maturin, cargo) and
#      every runtime dependency as a binary
#      wheel pinned by constraints.txt (`pip download --only-binary=:all:`), cached;
#   3. a copy of the base gets a venv in /opt/okey101 (`python3 -m venv --without-pip`),
#      the wheels installed into it by pip run from its own wheel (so pip is not left in
#      the image), the entry point /usr/local/bin/okey101-service, the user okey
#      (10101:10101, the Deployments' runAsUser), and neither apt nor its lists, caches or docs;
#   4. `podman import` makes it an image: ENTRYPOINT okey101-service, USER 10101.
#
# usage: deploy/image/build.sh [--fresh] [--tag TAG] [--oci-archive FILE]
#   --fresh: debootstrap the base and download the wheels again
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$ROOT/deploy/image
CACHE=${OKEY_IMAGE_CACHE:-$ROOT/.cache/image}
VERSION=$(sed -n 's/^version = "\(.*\)"/\1/p' "$ROOT/pyproject.toml" | head -1)
TAG=localhost/okey101:$VERSION
SUITE=bookworm
MIRROR=${OKEY_DEBIAN_MIRROR:-http://deb.debian.org/debian}
PACKAGES=python3,tzdata
UID_GID=10101
PYTHON=${PYTHON:-python3}
FRESH=0
ARCHIVE=
while [ $# -gt 0 ]; do
    case $1 in
        --fresh) FRESH=1 ;;
        --tag) TAG=$2; shift ;;
        --oci-archive) ARCHIVE=$2; shift ;;
        *) echo "unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done
for tool in debootstrap podman chroot; do
    command -v $tool >/dev/null || { echo "build.sh: $tool missing (apt-get install debootstrap podman)" >&2; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "build.sh: debootstrap and chroot need root" >&2; exit 1; }

start=$(date +%s)
step() { echo "[$(( $(date +%s) - start ))s] $*"; }
mkdir -p "$CACHE"

# 1. the base rootfs, cached by suite and package list
BASE=$CACHE/base-$SUITE-$(echo "$PACKAGES" | sha1sum | cut -c1-8)
if [ $FRESH = 1 ] || [ ! -e "$BASE/.done" ]; then
    step "debootstrap $SUITE ($PACKAGES) into $BASE"
    rm -rf "$BASE"
    debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$BASE" "$MIRROR" \
        > "$CACHE/debootstrap.log" 2>&1 || { tail -20 "$CACHE/debootstrap.log" >&2; exit 1; }
    touch "$BASE/.done"
fi

# 2. the wheels: the project's own, built each time from the tracked files (no .venv, no
#    .cache), and its runtime dependencies as pinned, cached by constraints.txt and pyproject
OWN=$CACHE/own
step "the project's wheel into $OWN"
rm -rf "$OWN"
mkdir -p "$OWN"
src=$(mktemp -d)
(cd "$ROOT" && git ls-files -z pyproject.toml README.md libs services | xargs -0 cp --parents -t "$src")
"$PYTHON" -m pip wheel -q --no-deps -w "$OWN" "$src"
rm -rf "$src"
# the compiled core (native/: Rust through maturin, cargo on the building host), one abi3 wheel
step "the compiled core's wheel into $OWN"
src=$(mktemp -d)
(cd "$ROOT" && git ls-files -z native | xargs -0 cp --parents -t "$src")
"$PYTHON" -m pip wheel -q --no-deps -w "$OWN" "$src/native"
rm -rf "$src"
WHEELS=$CACHE/wheels-$(cat "$ROOT/constraints.txt" "$ROOT/pyproject.toml" | sha1sum | cut -c1-8)
if [ $FRESH = 1 ] || [ ! -e "$WHEELS/.done" ]; then
    step "dependencies' wheels into $WHEELS"
    rm -rf "$WHEELS"
    "$PYTHON" -m pip download -q --only-binary=:all: -c "$ROOT/constraints.txt" -d "$WHEELS" \
        "$OWN"/okey101-*.whl pip
    rm -f "$WHEELS"/okey101-*.whl
    touch "$WHEELS/.done"
fi

# 3. the image's rootfs: a copy of the base, the venv, the user, the entry point
STAGE=$CACHE/rootfs
step "rootfs in $STAGE"
rm -rf "$STAGE"
cp -a "$BASE" "$STAGE"
rm -f "$STAGE/.done"
mkdir -p "$STAGE/wheels"
cp "$WHEELS"/*.whl "$OWN"/*.whl "$STAGE/wheels/"
# the host's environment stays out (PIP_*, PYTHON* variables)
CHROOT=$(command -v chroot)
inside() { env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$CHROOT" "$STAGE" "$@"; }
inside /usr/bin/python3 -m venv --without-pip /opt/okey101
pipwheel=$(cd "$STAGE/wheels" && ls pip-*.whl)
inside /opt/okey101/bin/python "/wheels/$pipwheel/pip" install -q \
    --no-index --find-links /wheels --no-cache-dir --disable-pip-version-check \
    okey101 okey101-native
rm -rf "$STAGE/wheels"
install -m 0755 "$HERE/okey101-service" "$STAGE/usr/local/bin/okey101-service"
grep -q '^okey:' "$STAGE/etc/group" || echo "okey:x:$UID_GID:" >> "$STAGE/etc/group"
grep -q '^okey:' "$STAGE/etc/passwd" || \
    echo "okey:x:$UID_GID:$UID_GID:okey101:/nonexistent:/usr/sbin/nologin" >> "$STAGE/etc/passwd"
# no package manager in a service's image (a user 10101 could not use it anyway)
inside /usr/bin/dpkg --purge apt libapt-pkg6.0 debian-archive-keyring gpgv >/dev/null
# what a running service never reads: apt's lists and caches, docs, manuals, locales
rm -rf "$STAGE"/var/lib/apt/lists/* "$STAGE"/var/cache/apt/* "$STAGE"/var/cache/debconf/*-old \
    "$STAGE"/usr/share/doc/* "$STAGE"/usr/share/man/* "$STAGE"/usr/share/info/* \
    "$STAGE"/usr/share/locale/* "$STAGE"/var/log/*.log "$STAGE"/tmp/* "$STAGE"/root/.cache
# nothing here may build code: the check that the image holds no compiler
for tool in gcc cc c++ make ld pip pip3 apt apt-get; do
    if inside /bin/sh -c "PATH=/opt/okey101/bin:/usr/local/bin:/usr/bin:/bin command -v $tool" >/dev/null; then
        echo "build.sh: $tool found in the image" >&2; exit 1
    fi
done

# 4. the image
step "podman import $TAG"
podman rmi -f "$TAG" >/dev/null 2>&1 || true
tar --numeric-owner -C "$STAGE" -c . | podman import \
    --change 'ENTRYPOINT ["/usr/local/bin/okey101-service"]' \
    --change "USER $UID_GID:$UID_GID" \
    --change 'WORKDIR /' \
    --change 'ENV PATH=/opt/okey101/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV PYTHONUNBUFFERED=1' \
    --change "LABEL org.opencontainers.image.title=okey101 org.opencontainers.image.version=$VERSION" \
    --message "okey101 $VERSION: Debian $SUITE minbase, python3, /opt/okey101 from constraints.txt" \
    - "$TAG" >/dev/null
if [ -n "$ARCHIVE" ]; then
    step "podman save $ARCHIVE"
    podman save --format oci-archive -o "$ARCHIVE" "$TAG"
fi
size=$(podman image inspect --format '{{.Size}}' "$TAG")
step "built $TAG: $(( size / 1000000 )) MB uncompressed ($size bytes)"
