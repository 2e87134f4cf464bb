#!/bin/sh
# rootfs.sh DEST BINARY...: the root filesystem of a FROM scratch image, made in a Debian stage
# that has the image's runtime packages installed (images/*.Dockerfile). DEST receives:
#   - each BINARY in /usr/local/bin;
#   - the dependency closure of the binaries: every library `ldd` resolves (the dynamic loader
#     included), at its canonical path, merged-/usr style (/lib, /lib64, /bin -> usr/...), with an
#     ld.so.cache; a library ldd cannot find fails the build, naming it;
#   - the copyright file of every Debian package a library comes from, and their list with
#     versions (/usr/share/doc/pgbench-operator/packages), for licenses and SBOMs;
#   - CA certificates (/etc/ssl/certs/ca-certificates.crt, where Debian's libcurl looks);
#   - /etc/passwd and /etc/group with root and nonroot (65532, the uid the images run as; home
#     /tmp, which the pods mount as an emptyDir), /etc/nsswitch.conf (files before dns, so that
#     localhost resolves from /etc/hosts), and /tmp (1777).
# scripts/check-images.sh checks that the stage's package list covers every library.
set -eu
dest="$1"
shift
mkdir -p "$dest/usr/bin" "$dest/usr/sbin" "$dest/usr/lib" "$dest/usr/local/bin" "$dest/etc/ssl/certs" \
    "$dest/tmp" "$dest/usr/share/doc/pgbench-operator"
chmod 1777 "$dest/tmp"
for d in bin sbin lib lib64; do
    if [ -L "/$d" ]; then
        mkdir -p "$dest/usr/$d"
        ln -s "usr/$d" "$dest/$d"
    fi
done
libs="$(mktemp)"
for bin in "$@"; do
    cp "$bin" "$dest/usr/local/bin/"
    out="$(ldd "$bin")" || { echo "rootfs: ldd $bin failed: $out" >&2; exit 1; }
    if echo "$out" | grep -q 'not found'; then
        echo "rootfs: $bin needs a library no installed package has:" >&2
        echo "$out" | grep 'not found' >&2
        exit 1
    fi
    echo "$out" | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}' >>"$libs"
done
dirs=""
# shellcheck disable=SC2013 # one path a line, without spaces (ldd's output)
for lib in $(sort -u "$libs"); do
    canon="$(readlink -f "$(dirname "$lib")")/$(basename "$lib")"
    mkdir -p "$dest$(dirname "$canon")"
    cp -L "$lib" "$dest$canon"
    case " $dirs " in *" $(dirname "$canon") "*) ;; *) dirs="$dirs $(dirname "$canon")" ;; esac
    pkg="$(dpkg -S "$canon" 2>/dev/null || dpkg -S "$lib" 2>/dev/null || true)"
    pkg="${pkg%%:*}"
    [ -n "$pkg" ] || { echo "rootfs: $lib belongs to no package" >&2; exit 1; }
    echo "$pkg" >>"$libs.pkgs"
done
# shellcheck disable=SC2013 # package names, one a line
for pkg in $(sort -u "$libs.pkgs"); do
    mkdir -p "$dest/usr/share/doc/$pkg"
    cp "/usr/share/doc/$pkg/copyright" "$dest/usr/share/doc/$pkg/"
    dpkg-query -W -f '${Package} ${Version}\n' "$pkg"
done >"$dest/usr/share/doc/pgbench-operator/packages"
rm -f "$libs" "$libs.pkgs"
# shellcheck disable=SC2086 # one directory a line
printf '%s\n' $dirs >"$dest/etc/ld.so.conf"
ldconfig -r "$dest"
cp /etc/ssl/certs/ca-certificates.crt "$dest/etc/ssl/certs/"
printf 'root:x:0:0:root:/root:/usr/sbin/nologin\nnonroot:x:65532:65532:nonroot:/tmp:/usr/sbin/nologin\n' \
    >"$dest/etc/passwd"
printf 'root:x:0:\nnonroot:x:65532:\n' >"$dest/etc/group"
printf 'passwd: files\ngroup: files\nhosts: files dns\n' >"$dest/etc/nsswitch.conf"
echo "rootfs: $# binaries, $(wc -l <"$dest/usr/share/doc/pgbench-operator/packages") packages, $(du -sk "$dest" | cut -f1) KiB"
