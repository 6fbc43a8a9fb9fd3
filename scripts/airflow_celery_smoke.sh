#!/usr/bin/env bash
# Many workers on one machine, as a federation deploys them on several: Airflow with the
# CeleryExecutor (Redis as broker, two Celery workers), PostgreSQL as Airflow's metadata database
# and as the log, the weekend's files dropped in the inbox and ingested in parallel.
#
#   scripts/airflow_celery_smoke.sh      (after `make venv`; installs the [celery] extra if missing)
#
# Everything listens on 127.0.0.1 only and lives in a throwaway folder; every process it starts
# (servers, Airflow's components, workers and their task processes) runs in one session that the
# exit trap ends. It checks that both workers ingested files, every session was published and
# scored, the log verifies with no file in it twice, and prints the time from drop to site.
set -euo pipefail
shopt -s nullglob
cd "$(dirname "$0")/.."
REPO=$PWD
VENV=${VENV:-$REPO/.venv}
export PATH="$VENV/bin:$PATH"
python -c "import airflow.providers.celery, celery, redis" 2>/dev/null || pip install -q -e "$REPO[celery]"

WORK=$(mktemp -d -t bridgeledger-celery-XXXXXX)
chmod 755 "$WORK"  # the server runs as Debian's postgres user, inside it
# Free ports on 127.0.0.1 unless given; a port something else listens on is refused, so that no
# other process (another engineer's Airflow, say) answers this run's calls.
free_port() { python -c "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])"; }
PGPORT=${PGPORT:-$(free_port)}
REDIS_PORT=${REDIS_PORT:-$(free_port)}
API_PORT=${API_PORT:-$(free_port)}
for port in "$PGPORT" "$REDIS_PORT" "$API_PORT"; do
    if ss -ltn | awk 'NR>1 {print $4}' | grep -q ":$port$"; then
        echo "port $port is taken by another process; give PGPORT, REDIS_PORT or API_PORT" >&2
        exit 2
    fi
done
FED=$WORK/federation
WEEKEND=$REPO/sample_data/weekend
mkdir -p "$FED/inbox"
say() { printf '[celery-smoke %s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }

SID_FILE=$WORK/session.sid
cleanup() {
    if [[ -s "$SID_FILE" ]]; then
        sid=$(<"$SID_FILE")
        pids=$(ps -eo pid=,sid= | awk -v sid="$sid" '$2 == sid {print $1}')
        # shellcheck disable=SC2086
        [[ -n "$pids" ]] && { kill -TERM $pids 2>/dev/null || true; sleep 5; kill -KILL $pids 2>/dev/null || true; }
    fi
    [[ -f "$WORK/redis.pid" ]] && kill "$(<"$WORK/redis.pid")" 2>/dev/null || true
    scripts/throwaway_postgres.sh stop "$WORK/pg" 2>/dev/null || true
    say "stopped everything; work folder kept for inspection: $WORK"
}
trap cleanup EXIT

PG=$(scripts/throwaway_postgres.sh start "$WORK/pg" "$PGPORT")
psql -q "$PG" -c "CREATE DATABASE airflow" -c "CREATE DATABASE federation"
redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --protected-mode yes --save '' --appendonly no \
    --daemonize yes --dir "$WORK" --pidfile "$WORK/redis.pid" --logfile "$WORK/redis.log"
say "PostgreSQL on 127.0.0.1:$PGPORT (databases airflow, federation), Redis on 127.0.0.1:$REDIS_PORT"

export AIRFLOW_HOME=$WORK/airflow_home
export AIRFLOW__CORE__DAGS_FOLDER=$REPO/dags AIRFLOW__CORE__LOAD_EXAMPLES=False
export AIRFLOW__CORE__EXECUTOR=CeleryExecutor AIRFLOW__CORE__PARALLELISM=8
export AIRFLOW__DATABASE__SQL_ALCHEMY_CONN=postgresql+psycopg://postgres@127.0.0.1:$PGPORT/airflow
export AIRFLOW__DATABASE__SQL_ALCHEMY_CONN_ASYNC=postgresql+psycopg_async://postgres@127.0.0.1:$PGPORT/airflow
export AIRFLOW__CELERY__BROKER_URL=redis://127.0.0.1:$REDIS_PORT/0
export AIRFLOW__CELERY__RESULT_BACKEND=db+postgresql+psycopg://postgres@127.0.0.1:$PGPORT/airflow
export AIRFLOW__CELERY__WORKER_CONCURRENCY=2
export AIRFLOW__API__HOST=127.0.0.1 AIRFLOW__API__PORT=$API_PORT AIRFLOW__API__WORKERS=1
export AIRFLOW__CORE__EXECUTION_API_SERVER_URL=http://127.0.0.1:$API_PORT/execution/
export AIRFLOW__SCHEDULER__ENABLE_HEALTH_CHECK=False AIRFLOW__DAG_PROCESSOR__REFRESH_INTERVAL=5
# Every component signs and checks the tasks' tokens with one secret (unset, each makes its own and
# the workers' calls are refused: "Invalid auth token").
AIRFLOW__API_AUTH__JWT_SECRET=$(python -c "import secrets; print(secrets.token_hex(32))")
AIRFLOW__API__SECRET_KEY=$(python -c "import secrets; print(secrets.token_hex(32))")
export AIRFLOW__API_AUTH__JWT_SECRET AIRFLOW__API__SECRET_KEY
export PYTHONPATH=$REPO
# The log in PostgreSQL; this machine's workers share one analytics file.
export BRIDGELEDGER_STORE=postgresql://postgres@127.0.0.1:$PGPORT/federation
export BRIDGELEDGER_ANALYTICS=$FED/analytics.duckdb
export AIRFLOW_VAR_BRIDGELEDGER="{\"store\": \"$BRIDGELEDGER_STORE\", \"inbox\": \"$FED/inbox\", \"outdir\": \"$FED/outputs\", \"site\": \"$FED/site\", \"notifications\": \"$FED/notifications.jsonl\"}"

airflow db migrate >"$WORK/migrate.log" 2>&1
airflow pools set bridgeledger_store 4 "PostgreSQL takes many writers" >/dev/null
airflow pools set bridgeledger_site 1 "one site build at a time" >/dev/null
airflow pools set bridgeledger_site_big 1 "one big events' site build at a time" >/dev/null
for conditions in "$WEEKEND"/conditions/*.toml; do
    event=$(basename "$conditions" .toml)
    bridgeledger register --event "$event" --name "$event" --conditions "$conditions" --at 2026-11-20T18:00+01:00 >/dev/null
done
say "registered $(ls "$WEEKEND"/conditions | wc -l) events in the PostgreSQL log"

# One session for every component, worker and task process: its id is the leader's pid.
setsid bash -c '
    echo $$ >"$1"
    trap "" HUP
    airflow api-server --host 127.0.0.1 --port "$AIRFLOW__API__PORT" >"$0/api-server.log" 2>&1 &
    airflow scheduler --skip-serve-logs >"$0/scheduler.log" 2>&1 &
    airflow dag-processor >"$0/dag-processor.log" 2>&1 &
    airflow triggerer --skip-serve-logs >"$0/triggerer.log" 2>&1 &
    airflow celery worker --skip-serve-logs --celery-hostname worker1@%h >"$0/worker1.log" 2>&1 &
    airflow celery worker --skip-serve-logs --celery-hostname worker2@%h >"$0/worker2.log" 2>&1 &
    wait' "$WORK" "$SID_FILE" </dev/null >/dev/null 2>&1 &
for _ in $(seq 50); do [[ -s "$SID_FILE" ]] && break; sleep 0.1; done
for _ in $(seq 180); do
    curl -fsS "http://127.0.0.1:$API_PORT/api/v2/monitor/health" >/dev/null 2>&1 && break
    sleep 2
done
for _ in $(seq 90); do
    airflow dags list -o plain 2>/dev/null | grep -q ingest_inbox && break
    sleep 2
done
say "Airflow up: api-server, scheduler, dag-processor, triggerer and two Celery workers (session $(<"$SID_FILE"))"
say "listening: $(ss -ltn | awk 'NR>1 {print $4}' | grep -E ":($API_PORT|$PGPORT|$REDIS_PORT|8793|8794)$" | tr '\n' ' ')"

drop() { mkdir -p "$FED/inbox/$2/$3"; cp "$WEEKEND/$1" "$FED/inbox/$2/$3/"; }
started=$(date +%s)
drop friday/riverside_pairs.csv riverside-pairs-2026-11-20 1
drop friday/hillside_pairs.xml hillside-pairs-2026-11-20 1
for s in 1 2; do for part in hands A B; do drop "saturday/national_pairs_s${s}_${part}.pbn" national-pairs-2026 "$s"; done; done
for f in "$WEEKEND"/sunday/*.pbn; do drop "sunday/$(basename "$f")" swiss-teams-2026 1; done
files=$(find "$FED/inbox" -type f | wc -l)
airflow dags trigger ingest_inbox >/dev/null
say "dropped $files files and triggered ingest_inbox"

published=0
for _ in $(seq 400); do
    published=$(psql -Atq "$BRIDGELEDGER_STORE" -c "SELECT count(*) FROM events WHERE type = 'ScoresPublished'" 2>/dev/null || echo 0)
    pages=("$FED"/site/e-*/s-*/index.html)
    [[ "${published:-0}" -ge 5 && "${#pages[@]}" -ge 5 ]] && break
    sleep 3
done
elapsed=$(( $(date +%s) - started ))

fail=0
check() { if eval "$2"; then say "ok    $1"; else say "FAIL  $1"; fail=1; fi; }
hosts=$(psql -Atq "postgresql://postgres@127.0.0.1:$PGPORT/airflow" \
    -c "SELECT count(DISTINCT hostname) FROM task_instance WHERE dag_id = 'ingest_inbox' AND task_id LIKE 'ingest%' AND state = 'success'" 2>/dev/null || echo 0)
workers=$(grep -l "task_id=ingest/" "$WORK"/worker*.log 2>/dev/null | wc -l)
ingested=$(psql -Atq "$BRIDGELEDGER_STORE" -c "SELECT count(*) FROM events WHERE type = 'SourceFileIngested'")
twice=$(psql -Atq "$BRIDGELEDGER_STORE" -c "SELECT count(*) - count(DISTINCT payload::json->>'sha256') FROM events WHERE type = 'SourceFileIngested'")
check "every file ingested once ($ingested of $files, $twice twice)" "[[ $ingested -eq $files && $twice -eq 0 ]]"
check "both Celery workers ran ingest tasks ($workers worker logs name one)" "[[ $workers -ge 2 ]]"
check "5 sessions published (${published:-0})" "[[ \${published:-0} -ge 5 ]]"
pages=("$FED"/site/e-*/s-*/index.html)
check "a site page per session (${#pages[@]})" "[[ ${#pages[@]} -eq 5 ]]"
check "hash chain intact (read from PostgreSQL)" "bridgeledger verify >/dev/null"
check "nothing listens beyond 127.0.0.1" "! ss -ltn | awk 'NR>1 {print \$4}' | grep -E ':($API_PORT|$PGPORT|$REDIS_PORT)$' | grep -vq '^127.0.0.1:'"
say "from drop to the fifth session's site page: ${elapsed} s ($files files, 2 workers x 2 slots; distinct task hosts: ${hosts:-?})"
exit $fail
