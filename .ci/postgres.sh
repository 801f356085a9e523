# A throwaway PostgreSQL server for the tests: `source .ci/postgres.sh; start_postgres; trap stop_postgres EXIT`.
# Installs Debian's postgresql package when no server binaries are found (apt-get, non-interactive; needs root),
# initialises a cluster in a temporary folder, listens on a unix socket in that folder only (no TCP port), creates
# the database anonstudio_test and exports ANONSTUDIO_TEST_PG_URL. stop_postgres stops it and removes the folder.

_pg_bindir() {
    local found
    found=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
    if [ -n "$found" ] && [ -x "$found/initdb" ]; then echo "$found"; return; fi
    if command -v initdb >/dev/null 2>&1; then dirname "$(command -v initdb)"; fi
}

start_postgres() {
    local bindir
    bindir=$(_pg_bindir)
    if [ -z "$bindir" ]; then
        echo "postgres: installing Debian's postgresql package" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq && apt-get install -y -qq --no-install-recommends postgresql >/dev/null
        bindir=$(_pg_bindir)
    fi
    PG_TMP=$(mktemp -d /tmp/anonstudio-pg.XXXXXX)
    local as=()
    if [ "$(id -u)" = 0 ]; then  # initdb refuses to run as root: the server runs as the postgres user
        id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres
        chown postgres "$PG_TMP"
        as=(runuser -u postgres --)
    fi
    local port=5432
    "${as[@]}" "$bindir/initdb" -D "$PG_TMP/data" -U postgres -A trust --no-sync -E UTF8 >/dev/null
    "${as[@]}" "$bindir/pg_ctl" -D "$PG_TMP/data" -l "$PG_TMP/log" -w -t 60 \
        -o "-k $PG_TMP -c listen_addresses='' -p $port -c fsync=off" start >/dev/null
    "${as[@]}" "$bindir/createdb" -h "$PG_TMP" -p "$port" -U postgres anonstudio_test
    PG_BINDIR=$bindir
    PG_AS=("${as[@]}")
    export ANONSTUDIO_TEST_PG_URL="postgresql://postgres@/anonstudio_test?host=$PG_TMP&port=$port"
    echo "postgres: test server at $ANONSTUDIO_TEST_PG_URL" >&2
}

stop_postgres() {
    if [ -n "${PG_TMP:-}" ] && [ -d "$PG_TMP/data" ]; then
        "${PG_AS[@]}" "$PG_BINDIR/pg_ctl" -D "$PG_TMP/data" -m fast -w stop >/dev/null 2>&1 || true
        rm -rf "$PG_TMP"
    fi
}
