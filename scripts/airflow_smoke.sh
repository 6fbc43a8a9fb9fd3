#!/usr/bin/env bash
# The weekend under a real Airflow: `airflow standalone` on localhost in a throwaway AIRFLOW_HOME,
# the weekend's files dropped into the inbox, the DAGs left to do the rest.
#
#   scripts/airflow_smoke.sh            (after `make venv`; not part of `make test`: it takes minutes)
#
# It registers the weekend's events (their conditions of contest), starts standalone, drops the
# files into inbox/<event>/<session>/, triggers ingest_inbox once (its schedule would within five
# minutes), waits for score_and_publish to publish every session, checks the store, the outputs,
# the results site and that publish_ranking runs on the weekend rule set's schedule, and stops
# everything it started. Exit 0 only if every check passed.
set -euo pipefail
shopt -s nullglob
cd "$(dirname "$0")/.."
REPO=$PWD
VENV=${VENV:-$REPO/.venv}
export PATH="$VENV/bin:$PATH"   # standalone starts `airflow scheduler` etc. from PATH

WORK=$(mktemp -d -t bridgeledger-airflow-XXXXXX)
export AIRFLOW_HOME=$WORK/airflow_home
export AIRFLOW__CORE__DAGS_FOLDER=$REPO/dags
export AIRFLOW__CORE__LOAD_EXAMPLES=False
export AIRFLOW__API__HOST=127.0.0.1
export AIRFLOW__API__PORT=${AIRFLOW_PORT:-18080}
export AIRFLOW__CORE__EXECUTION_API_SERVER_URL=http://127.0.0.1:$AIRFLOW__API__PORT/execution/
export AIRFLOW__LOGGING__WORKER_LOG_SERVER_PORT=18793
export AIRFLOW__LOGGING__TRIGGER_LOG_SERVER_PORT=18794
export AIRFLOW__SCHEDULER__ENABLE_HEALTH_CHECK=False
export AIRFLOW__DAG_PROCESSOR__REFRESH_INTERVAL=5
export PYTHONPATH=$REPO
FED=$WORK/federation
WEEKEND=$REPO/sample_data/weekend
export AIRFLOW_VAR_BRIDGELEDGER="{\"store\": \"$FED/bridgeledger.duckdb\", \"inbox\": \"$FED/inbox\", \"outdir\": \"$FED/outputs\", \"site\": \"$FED/site\", \"notifications\": \"$FED/notifications.jsonl\", \"ranking_rules\": \"$WEEKEND/ranking_rules.toml\"}"
STORE=$FED/bridgeledger.duckdb
mkdir -p "$FED/inbox"

say() { printf '[smoke %s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }
PID=
cleanup() {
    if [[ -n "$PID" ]] && kill -0 "$PID" 2>/dev/null; then
        say "stopping standalone (process group $PID)"
        kill -TERM -- "-$PID" 2>/dev/null || true
        for _ in $(seq 30); do kill -0 "$PID" 2>/dev/null || break; sleep 1; done
        kill -KILL -- "-$PID" 2>/dev/null || true
    fi
    say "work folder kept for inspection: $WORK"
}
trap cleanup EXIT

say "AIRFLOW_HOME=$AIRFLOW_HOME"
airflow db migrate >"$WORK/migrate.log" 2>&1
airflow pools set bridgeledger_store 1 "DuckDB has one writer" >/dev/null
for conditions in "$WEEKEND"/conditions/*.toml; do
    event=$(basename "$conditions" .toml)
    bridgeledger register --store "$STORE" --event "$event" --name "$event" --conditions "$conditions" \
        --at 2026-11-20T18:00+01:00 >/dev/null
done
say "registered $(ls "$WEEKEND"/conditions | wc -l) events in $STORE"

setsid airflow standalone >"$WORK/standalone.log" 2>&1 &
PID=$!
say "standalone started (pid $PID); waiting for the API on 127.0.0.1:$AIRFLOW__API__PORT"
for _ in $(seq 180); do
    curl -fsS "http://127.0.0.1:$AIRFLOW__API__PORT/api/v2/monitor/health" >/dev/null 2>&1 && break
    sleep 2
done
curl -fsS "http://127.0.0.1:$AIRFLOW__API__PORT/api/v2/monitor/health" >/dev/null
say "API up; listening sockets of this run:"
ss -ltn | awk 'NR>1 {print "    " $4}' | grep -E ":($AIRFLOW__API__PORT|18793|18794)$" || true

for _ in $(seq 60); do
    airflow dags list -o plain 2>/dev/null | grep -q ingest_inbox && break
    sleep 2
done
drop() { mkdir -p "$FED/inbox/$2/$3"; cp "$WEEKEND/$1" "$FED/inbox/$2/$3/"; }
drop friday/riverside_pairs.csv riverside-pairs-2026-11-20 1
drop friday/hillside_pairs.xml hillside-pairs-2026-11-20 1
for s in 1 2; do for part in hands A B; do drop "saturday/national_pairs_s${s}_${part}.pbn" national-pairs-2026 "$s"; done; done
for f in "$WEEKEND"/sunday/*.pbn; do drop "sunday/$(basename "$f")" swiss-teams-2026 1; done
cp "$WEEKEND/broken/harbour_pairs.csv" "$FED/inbox/"
say "dropped $(find "$FED/inbox" -type f | wc -l) files in the inbox"
airflow dags trigger ingest_inbox >/dev/null
say "triggered ingest_inbox; waiting for score_and_publish to publish the weekend and write its site"

published=0
for _ in $(seq 300); do
    published=$(bridgeledger sql --store "$STORE" \
        "SELECT count(*) AS n FROM events WHERE type = 'ScoresPublished'" 2>/dev/null | grep -Eo '[0-9]+' | tail -1 || echo 0)
    session_pages=("$FED"/site/e-*/s-*/index.html)
    pages=${#session_pages[@]}
    [[ "${published:-0}" -ge 5 && -f "$FED/outputs/standings.csv" && "$pages" -ge 5 ]] && break
    sleep 4
done
sleep 5  # let the site task of the last run finish writing

fail=0
check() { if eval "$2"; then say "ok    $1"; else say "FAIL  $1"; fail=1; fi; }
check "inbox emptied" "[[ -z \$(find '$FED/inbox' -type f) ]]"
check "24 files in processed/" "[[ \$(find '$FED/processed' -type f ! -name '*.diagnostics.txt' | wc -l) -eq 24 ]]"
check "the broken file in rejected/ with its diagnostics" "[[ -f '$FED/rejected/harbour_pairs.csv.diagnostics.txt' ]]"
check "a failure notice names the broken file" "grep -q harbour_pairs.csv '$FED/notifications.jsonl'"
check "5 sessions published (${published:-0})" "[[ \${published:-0} -ge 5 ]]"
check "standings written" "[[ -f '$FED/outputs/standings.csv' ]]"
check "hash chain intact" "bridgeledger verify --store '$STORE' >/dev/null"
check "results site written" "[[ -f '$FED/site/index.html' ]]"
session_pages=("$FED"/site/e-*/s-*/index.html)
check "a site page per session (${#session_pages[@]})" "[[ ${#session_pages[@]} -eq 5 ]]"
check "session pages say provisional until the deadline" "grep -q 'provisional until' '$FED/site/e-national-pairs-2026/s-2/index.html'"
# Airflow prints warnings on stdout too: the JSON is the line that starts with [{
schedule=$(airflow dags details publish_ranking -o json 2>/dev/null | grep '^\[{' | python -c \
    'import json, sys; print(json.load(sys.stdin)[0]["timetable_summary"])' 2>/dev/null || echo "?")
check "publish_ranking on the rule set's schedule ($schedule)" "[[ '$schedule' == '0 8 * * MON' ]]"
edition=$(bridgeledger sql --store "$STORE" \
    "SELECT payload->>'\$.edition' AS e FROM events WHERE type = 'RankingPublished'" 2>/dev/null \
    | grep -Eo 'nbf-2026@[0-9T:+-]+' | tail -1 || true)
monday=$(date -u -d "$(sed -E 's/^nbf-2026@//' <<<"$edition")" +%a 2>/dev/null || echo "?")
check "its latest Monday's edition published ($edition)" "[[ '$edition' == nbf-2026@*T08:00:00+00:00 && '$monday' == Mon ]]"
say "runs:"
quiet() { grep -v -i -E "graphviz|pip install|you might need" | sed 's/^/    /' | head -6; }
airflow dags list-runs ingest_inbox -o plain 2>/dev/null | quiet || true
airflow dags list-runs score_and_publish -o plain 2>/dev/null | quiet || true
bridgeledger sql --store "$STORE" "SELECT event_id, session_id, direction, count(*) AS contestants, \
    any_value(status) AS status FROM standings GROUP BY ALL ORDER BY ALL" || true
exit $fail
