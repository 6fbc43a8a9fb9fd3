#!/usr/bin/env bash
# The weekend under a real Airflow: its components on localhost (scripts/airflow_local.sh) in a
# throwaway AIRFLOW_HOME, the weekend's files and one 100,000-board hand record dropped into the
# inbox, the DAGs left to do the rest.
#
#   scripts/airflow_smoke.sh            (after `make venv`; not part of `make test`: 30-45 minutes)
#   BIG_BOARDS=0 scripts/airflow_smoke.sh   (the weekend alone)
#
# It registers the weekend's events (their conditions of contest, with a 4-minute correction
# period so that closing happens within the run), starts Airflow, drops the files into
# inbox/<event>/<session>/, triggers ingest_inbox once (its schedule would within five minutes),
# waits for score_and_publish to publish every session, checks the store, the outputs, the results
# site and that publish_ranking runs on the weekend rule set's schedule; then (issue #36) that the
# weekend's periods are closed on time while the big file's analysis runs, that a second analysis
# run resumes where the first stopped, that every server listens on 127.0.0.1 only, that the
# executor has few workers, and that stopping ends every process it started. Exit 0 only if every
# check passed.
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
# A free port unless told: another Airflow on this machine would answer our health checks.
export AIRFLOW__API__PORT=${AIRFLOW_PORT:-$(python -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
export AIRFLOW__DAG_PROCESSOR__REFRESH_INTERVAL=5
export BRIDGELEDGER_ANALYSIS_SLICE_SECONDS=${ANALYSIS_SLICE:-60}   # short runs: a second one must resume
BIG_BOARDS=${BIG_BOARDS:-100000}
BIG_EVENT=marathon-2026
export PYTHONPATH=$REPO
FED=$WORK/federation
WEEKEND=$REPO/sample_data/weekend
export AIRFLOW_VAR_BRIDGELEDGER="{\"store\": \"$FED/bridgeledger.duckdb\", \"inbox\": \"$FED/inbox\", \"outdir\": \"$FED/outputs\", \"site\": \"$FED/site\", \"notifications\": \"$FED/notifications.jsonl\", \"ranking_rules\": \"$WEEKEND/ranking_rules.toml\"}"
STORE=$FED/bridgeledger.duckdb
mkdir -p "$FED/inbox"

say() { printf '[smoke %s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }
STARTED=
cleanup() {
    if [[ -n "$STARTED" ]]; then
        "$REPO/scripts/airflow_local.sh" stop || true
    fi
    say "work folder kept for inspection: $WORK"
}
trap cleanup EXIT
q() {  # one number from the store (a reader; the analysis's saves may make it wait a moment)
    bridgeledger sql --store "$STORE" "$1" 2>/dev/null | grep -Eo '[0-9]+' | tail -1 || echo 0
}

say "AIRFLOW_HOME=$AIRFLOW_HOME"
airflow db migrate >"$WORK/migrate.log" 2>&1
airflow pools set bridgeledger_store 1 "DuckDB has one writer" >/dev/null
airflow pools set bridgeledger_site 1 "one site build at a time" >/dev/null
airflow pools set bridgeledger_site_big 1 "one big events' site build at a time" >/dev/null
mkdir -p "$WORK/conditions"
for conditions in "$WEEKEND"/conditions/*.toml; do
    event=$(basename "$conditions" .toml)
    sed -E 's/^correction_period_minutes = [0-9.]+/correction_period_minutes = 4/' "$conditions" \
        >"$WORK/conditions/$event.toml"
    bridgeledger register --store "$STORE" --event "$event" --name "$event" --conditions "$WORK/conditions/$event.toml" \
        --at 2026-11-20T18:00+01:00 >/dev/null
done
if [[ "$BIG_BOARDS" -gt 0 ]]; then
    # Its own 30-minute period: its closing (and the re-rendering of its 100,000 board pages) comes
    # after this run's checks.
    bridgeledger register --store "$STORE" --event "$BIG_EVENT" --name "Marathon 2026" \
        --conditions "$WEEKEND/conditions/national-pairs-2026.toml" --at 2026-11-20T18:00+01:00 >/dev/null
    python "$REPO/scripts/big_handrecord.py" "$BIG_BOARDS" "$WORK/marathon.pbn"
    say "wrote a hand record of $BIG_BOARDS distinct deals ($(du -h "$WORK/marathon.pbn" | cut -f1))"
fi
say "registered $(ls "$WORK"/conditions | wc -l) events (and the big file's) in $STORE, correction periods of 4 minutes"

"$REPO/scripts/airflow_local.sh" start
STARTED=1
SID=$(<"$AIRFLOW_HOME/bridgeledger-airflow.sid")
say "waiting for the API on 127.0.0.1:$AIRFLOW__API__PORT"
for _ in $(seq 180); do
    curl -fsS "http://127.0.0.1:$AIRFLOW__API__PORT/api/v2/monitor/health" >/dev/null 2>&1 && break
    sleep 2
done
curl -fsS "http://127.0.0.1:$AIRFLOW__API__PORT/api/v2/monitor/health" >/dev/null
session_pids() { ps -eo pid=,sid=,stat= | awk -v sid="$SID" '$2 == sid && $3 !~ /^Z/ {print $1}'; }  # a zombie has ended
listening() {  # the listening TCP sockets of this run's processes: address:port
    local pids
    pids=$(session_pids | paste -sd'|')
    ss -ltnpH 2>/dev/null | grep -E "pid=($pids)," | awk '{print $4}' | sort -u
}
say "API up; listening sockets of this run: $(listening | paste -sd' ')"
if ! listening | grep -q ":$AIRFLOW__API__PORT\$"; then
    say "the server answering on 127.0.0.1:$AIRFLOW__API__PORT is not this run's: stopping"
    exit 1
fi

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
[[ "$BIG_BOARDS" -gt 0 ]] && mkdir -p "$FED/inbox/$BIG_EVENT/1" && cp "$WORK/marathon.pbn" "$FED/inbox/$BIG_EVENT/1/"
say "dropped $(find "$FED/inbox" -type f | wc -l) files in the inbox"
airflow dags trigger ingest_inbox >/dev/null
say "triggered ingest_inbox; waiting for score_and_publish to publish the weekend and write its site"

WEEKEND_ONLY="payload->>'\$.event_id' <> '$BIG_EVENT'"
published=0
for _ in $(seq 300); do
    published=$(q "SELECT count(*) AS n FROM events WHERE type = 'ScoresPublished' AND $WEEKEND_ONLY")
    session_pages=("$FED"/site/e-*/s-*/index.html)
    pages=${#session_pages[@]}
    weekend_pages=$(find "$FED/site" -path "*/e-$BIG_EVENT" -prune -o -path '*/e-*/s-*/index.html' -print 2>/dev/null | wc -l)
    [[ "${published:-0}" -ge 5 && -f "$FED/outputs/standings.csv" && "$weekend_pages" -ge 5 ]] && break
    sleep 4
done
for _ in $(seq 24); do  # the last publication's site task writes its pages
    grep -q 'provisional until' "$FED/site/e-national-pairs-2026/s-2/index.html" 2>/dev/null && break
    sleep 5
done
say "the weekend is published; the analysis has $(q "SELECT count(*) FROM derived_double_dummy") deal(s) solved so far"

fail=0
check() { if eval "$2"; then say "ok    $1"; else say "FAIL  $1"; fail=1; fi; }
check "inbox emptied" "[[ -z \$(find '$FED/inbox' -type f) ]]"
expected_files=$((24 + (BIG_BOARDS > 0 ? 1 : 0)))
check "$expected_files files in processed/" "[[ \$(find '$FED/processed' -type f ! -name '*.diagnostics.txt' | wc -l) -eq $expected_files ]]"
check "the broken file in rejected/ with its diagnostics" "[[ -f '$FED/rejected/harbour_pairs.csv.diagnostics.txt' ]]"
check "a failure notice names the broken file" "grep -q harbour_pairs.csv '$FED/notifications.jsonl'"
check "5 sessions published (${published:-0})" "[[ \${published:-0} -ge 5 ]]"
check "standings written" "[[ -f '$FED/outputs/standings.csv' ]]"
check "hash chain intact" "bridgeledger verify --store '$STORE' >/dev/null"
check "results site written" "[[ -f '$FED/site/index.html' ]]"
weekend_pages=$(find "$FED/site" -path "*/e-$BIG_EVENT" -prune -o -path '*/e-*/s-*/index.html' -print | wc -l)
check "a site page per session of the weekend ($weekend_pages)" "[[ $weekend_pages -eq 5 ]]"
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

# --- issue #36: the big file's analysis never holds up the weekend, and resumes ---
if [[ "$BIG_BOARDS" -gt 0 ]]; then
    total=$(q "SELECT count(DISTINCT payload->>'\$.deal') FROM events WHERE type = 'BoardDealt'")
    deadline=$(q "SELECT CAST(epoch(max(occurred_at)) AS BIGINT) + 240 FROM events WHERE type = 'ScoresPublished' AND $WEEKEND_ONLY")
    wait_s=$((deadline - $(date +%s) + 5))
    say "waiting ${wait_s}s for the weekend's correction periods to end ($(date -u -d "@$deadline" +%H:%M:%S))"
    [[ $wait_s -gt 0 ]] && sleep "$wait_s"
    airflow dags trigger close_correction_periods >/dev/null
    closed=0
    for _ in $(seq 120); do
        closed=$(q "SELECT count(*) FROM events WHERE type = 'CorrectionPeriodClosed' AND $WEEKEND_ONLY")
        [[ "${closed:-0}" -ge 5 ]] && break
        sleep 5
    done
    late=$(q "SELECT CAST(max(epoch(recorded_at) - epoch(occurred_at)) AS BIGINT) FROM events \
              WHERE type = 'CorrectionPeriodClosed' AND $WEEKEND_ONLY")
    solved=$(q "SELECT count(*) FROM derived_double_dummy")
    check "the weekend's 5 periods closed (${closed:-0}), at most ${late:-?}s after their deadlines" \
        "[[ \${closed:-0} -ge 5 && \${late:-9999} -le 300 ]]"
    check "... while the analysis runs ($solved of $total deals solved)" "[[ $solved -lt $total ]]"
    for _ in $(seq 60); do  # the close run's site task writes the pages
        grep -q 'provisional until' "$FED/site/e-national-pairs-2026/s-2/index.html" || break
        sleep 5
    done
    check "the closed session's page no longer says provisional" \
        "! grep -q 'provisional until' '$FED/site/e-national-pairs-2026/s-2/index.html'"
    # The big event's pages come from site_big, in a pool of its own, whenever its render ends.
    for _ in $(seq 240); do
        [[ -f "$FED/site/e-$BIG_EVENT/s-1/index.html" ]] && grep -q "e-$BIG_EVENT/index.html" "$FED/site/index.html" && break
        sleep 5
    done
    check "the big file's session page written ($BIG_BOARDS boards) and on the front page" \
        "[[ -f '$FED/site/e-$BIG_EVENT/s-1/index.html' ]] && grep -q 'e-$BIG_EVENT/index.html' '$FED/site/index.html'"
    check "the weekend's events still on the front page beside it" \
        "grep -q 'e-national-pairs-2026/index.html' '$FED/site/index.html'"
    check "its board pages say analysis pending" "grep -q 'analysis pending' '$FED/site/e-$BIG_EVENT/s-1/board-$BIG_BOARDS.html'"
    # Two analysis runs: the second starts from what the first saved (each run solves for
    # BRIDGELEDGER_ANALYSIS_SLICE_SECONDS; the DAG's schedule would start them every five minutes).
    to_solve() { grep -rhoE '[0-9]+ deal\(s\) to solve' "$AIRFLOW_HOME/logs/dag_id=analyse_deals" 2>/dev/null \
                     | grep -Eo '^[0-9]+' | sort -rn | uniq; }
    for _ in $(seq 90); do
        [[ $(to_solve | wc -l) -ge 2 ]] && break
        if ! airflow dags list-runs analyse_deals -o plain 2>/dev/null | grep -qE 'running|queued'; then
            airflow dags trigger analyse_deals >/dev/null 2>&1 || true
        fi
        sleep 20
    done
    runs=$(to_solve | paste -sd' ')
    first=$(to_solve | head -1); second=$(to_solve | sed -n 2p)
    solved=$(q "SELECT count(*) FROM derived_double_dummy")
    check "the analysis resumes: runs started with $runs deal(s) to solve; $solved of $total solved now" \
        "[[ -n '$second' && $second -lt $first && $solved -gt 0 ]]"
    check "its progress is in the task log" \
        "grep -rqE 'deal\(s\) solved and saved in' '$AIRFLOW_HOME/logs/dag_id=analyse_deals'"
fi
sockets=$(listening | paste -sd' ')
check "every server listens on 127.0.0.1 only ($sockets)" "[[ -n '$sockets' && -z \$(listening | grep -v '^127\.0\.0\.1:') ]]"
workers=$(ps -o args= -s "$SID" | grep -c 'LocalExecutor' || true)
check "the executor has few worker processes ($workers)" "[[ $workers -le 4 ]]"

say "runs:"
quiet() { grep -v -i -E "graphviz|pip install|you might need" | sed 's/^/    /' | head -6; }
airflow dags list-runs ingest_inbox -o plain 2>/dev/null | quiet || true
airflow dags list-runs score_and_publish -o plain 2>/dev/null | quiet || true
bridgeledger sql --store "$STORE" "SELECT event_id, session_id, direction, count(*) AS contestants, \
    any_value(status) AS status FROM standings GROUP BY ALL ORDER BY ALL" || true

# Item 11: the stop ends every process it started, the tasks in their own process groups too.
"$REPO/scripts/airflow_local.sh" stop
STARTED=
left=$(session_pids | paste -sd' ')
check "stopping ended every process of the run (left: ${left:-none})" "[[ -z '$left' ]]"
exit $fail
