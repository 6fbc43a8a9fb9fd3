#!/usr/bin/env bash
# Airflow on one machine for bridgeledger: localhost only, few workers, and a stop that ends every
# process it started, task processes included.
#
#   scripts/airflow_local.sh start     (with AIRFLOW_HOME etc. exported as the README says)
#   scripts/airflow_local.sh stop
#   scripts/airflow_local.sh status    (the processes still running, one a line)
#
# Why not `airflow standalone` (issue #36, items 11 and 18):
# - its two log servers listen on every interface, and Airflow has no setting for their address;
#   here the scheduler and the triggerer run with --skip-serve-logs (the API server reads the task
#   logs from $AIRFLOW_HOME/logs on this same machine) and the API server binds 127.0.0.1;
# - its LocalExecutor forks [core] parallelism workers at start (32, of ~144 MB each); here 4
#   (AIRFLOW__CORE__PARALLELISM to change it) and one API server worker;
# - every task process leads its own process group (Airflow's supervisor does that to signal a
#   task's children), so stopping standalone's group left tasks running with parent 1. Here all
#   components start in one new session (setsid); a process group changed inside it stays in it,
#   so `stop` ends every process of that session, by id: TERM, then KILL after a grace period.
set -euo pipefail

: "${AIRFLOW_HOME:?export AIRFLOW_HOME first (see the README)}"
SID_FILE=$AIRFLOW_HOME/bridgeledger-airflow.sid
LOG_DIR=$AIRFLOW_HOME/components
GRACE=${AIRFLOW_STOP_GRACE:-30}

export AIRFLOW__API__HOST=127.0.0.1
export AIRFLOW__API__PORT=${AIRFLOW__API__PORT:-8080}
export AIRFLOW__API__WORKERS=${AIRFLOW__API__WORKERS:-1}
export AIRFLOW__CORE__EXECUTOR=LocalExecutor
export AIRFLOW__CORE__PARALLELISM=${AIRFLOW__CORE__PARALLELISM:-4}
export AIRFLOW__CORE__EXECUTION_API_SERVER_URL=${AIRFLOW__CORE__EXECUTION_API_SERVER_URL:-http://127.0.0.1:$AIRFLOW__API__PORT/execution/}
export AIRFLOW__SCHEDULER__ENABLE_HEALTH_CHECK=False
export AIRFLOW__SCHEDULER__SCHEDULER_HEALTH_CHECK_SERVER_HOST=127.0.0.1

say() { printf '[airflow_local %s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }

# The processes of the session this script started (none when it is not running).
session_pids() {
    [[ -f "$SID_FILE" ]] || return 0
    local sid
    sid=$(<"$SID_FILE")
    # A zombie (state Z) has ended already: only its parent's reaping is left.
    ps -eo pid=,sid=,stat= | awk -v sid="$sid" '$2 == sid && $3 !~ /^Z/ {print $1}'
}

start() {
    if [[ -n "$(session_pids)" ]]; then
        say "already running (session $(<"$SID_FILE")); stop it first"
        exit 1
    fi
    if [[ -n "$(ss -ltnH "sport = :$AIRFLOW__API__PORT" 2>/dev/null)" ]]; then
        # Someone else's server there would answer this run's health checks and API calls.
        say "port $AIRFLOW__API__PORT is in use by another process: choose another (AIRFLOW__API__PORT)"
        exit 1
    fi
    mkdir -p "$LOG_DIR"
    # One session for every component and every task process they start; its id is the leader's pid.
    rm -f "$SID_FILE"
    setsid bash -c '
        echo $$ >"$1"  # setsid made this shell the leader: its pid is the session id
        trap "" HUP
        for component in "api-server --host 127.0.0.1 --port $AIRFLOW__API__PORT" "scheduler --skip-serve-logs" \
                         "triggerer --skip-serve-logs" "dag-processor"; do
            name=${component%% *}
            airflow $component >"$0/$name.log" 2>&1 &
        done
        wait' "$LOG_DIR" "$SID_FILE" </dev/null >/dev/null 2>&1 &
    for _ in $(seq 50); do [[ -s "$SID_FILE" ]] && break; sleep 0.1; done
    say "started session $(<"$SID_FILE"): api-server on 127.0.0.1:$AIRFLOW__API__PORT, scheduler, triggerer, dag-processor" \
        "(parallelism $AIRFLOW__CORE__PARALLELISM; logs in $LOG_DIR)"
}

stop() {
    local pids
    pids=$(session_pids)
    if [[ -z "$pids" ]]; then
        say "nothing running"
        rm -f "$SID_FILE"
        return 0
    fi
    say "stopping session $(<"$SID_FILE"): $(wc -w <<<"$pids") process(es)"
    # shellcheck disable=SC2086
    kill -TERM $pids 2>/dev/null || true
    for _ in $(seq "$GRACE"); do
        [[ -z "$(session_pids)" ]] && break
        sleep 1
    done
    pids=$(session_pids)
    if [[ -n "$pids" ]]; then
        say "still running after ${GRACE}s, killed: $(tr '\n' ' ' <<<"$pids")"
        # shellcheck disable=SC2086
        kill -KILL $pids 2>/dev/null || true
        for _ in $(seq 10); do
            [[ -z "$(session_pids)" ]] && break
            sleep 1
        done
    fi
    pids=$(session_pids)
    if [[ -n "$pids" ]]; then
        say "FAILED to stop: $(tr '\n' ' ' <<<"$pids")"
        exit 1
    fi
    rm -f "$SID_FILE"
    say "stopped: no process of the session is left"
}

status() {
    local pids
    pids=$(session_pids)
    [[ -n "$pids" ]] || { say "not running"; return 0; }
    # shellcheck disable=SC2086
    ps -o pid=,pgid=,ppid=,rss=,args= -p "$(tr '\n' ',' <<<"$pids" | sed 's/,$//')"
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    status) status ;;
    *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
