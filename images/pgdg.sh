#!/bin/sh
# pgdg.sh PG_MAJOR DEBIAN_RELEASE: apt-get update, adding the PGDG repository
# (apt.postgresql.org) first when PG_MAJOR is not the release's own PostgreSQL (15 in bookworm).
# Used by images/runner.Dockerfile in its pgbench and runtime stages.
set -eu
major="$1"
release="$2"
apt-get update
case "$release:$major" in
bookworm:15) exit 0 ;;
esac
apt-get install -y --no-install-recommends ca-certificates curl gnupg
curl -fsSL https://www.postgresql.org/media/keys/ACCC4CF8.asc |
    gpg --dearmor -o /usr/share/keyrings/pgdg.gpg
echo "deb [signed-by=/usr/share/keyrings/pgdg.gpg] http://apt.postgresql.org/pub/repos/apt ${release}-pgdg main ${major}" \
    >/etc/apt/sources.list.d/pgdg.list
apt-get purge -y --auto-remove curl gnupg
apt-get update
