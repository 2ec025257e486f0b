#!/usr/bin/env bash
# Whole-process benchmark of the latchkey CLI against secret-tool (gnome-keyring under dbus-run-session)
# and pass (gpg), at the same item counts. Writes a Markdown table (docs/cli-benchmarks.md by default).
#
#   scripts/bench-cli.sh [--sizes "10 1000 10000"] [--runs 40] [--out docs/cli-benchmarks.md]
#                        [--tools "latchkey latchkey-agent secret-tool pass"] [--results DIR]
#                        [--secret-tool-collection login|session]
#
# --results keeps hyperfine's JSON in DIR (default: a temporary folder) and renders the table from every
# result found there, so one tool can be measured again without refilling the others.
#
# Operations, each timed by hyperfine as a whole process (start-up, unlock, lookup or write, exit):
#   lookup  latchkey find-generic-password -s S -a A -w   |  secret-tool lookup service S user A  |  pass show S/A
#   store   latchkey add-generic-password -U ... --password-stdin  |  secret-tool store (replaces)  |  pass insert -m -f
# latchkey unlocks with a key file (LATCHKEY_KEY_FILE); gnome-keyring's login collection is unlocked once at
# daemon start; pass uses a gpg key without passphrase and a warm gpg-agent. Every peer gets N items first.
#
# latchkey-agent (issue 15; lookups only): a passphrase keychain (standard scrypt cost) served by
# `latchkey agent` in its own XDG_RUNTIME_DIR, unlocked once with `latchkey unlock --passphrase-stdin`; each
# timed `latchkey find-generic-password -w` has no credential in its environment and LATCHKEY_AGENT=required.
# The agent is stopped (SIGTERM) after each size.
#
# --secret-tool-collection session puts secret-tool's N items in gnome-keyring's in-memory session
# collection instead of the file-backed login collection (lookups only; no store is timed): the daemon
# rewrites its whole keyring file for every new item, so filling the login collection with 10 000 items
# takes about 35 minutes, the session collection about a minute. A lookup reads the daemon's memory in both.
#
# Needs (Debian): hyperfine gnome-keyring libsecret-tools dbus-daemon pass gnupg python3-secretstorage
#   apt-get install -y --no-install-recommends hyperfine gnome-keyring libsecret-tools dbus-x11 pass gnupg python3-secretstorage
set -euo pipefail

SIZES="10 1000 10000"
RUNS=40
TOOLS="latchkey secret-tool pass"
RESULTS=""
OUT="docs/cli-benchmarks.md"
COLLECTION="login"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# Inner mode: the secret-tool measurements, run inside dbus-run-session (see below).
if [[ "${1:-}" == "__secret_tool" ]]; then
    n="$2"; results="$3"; runs="$4"; collection="${5:-login}"
    export XDG_RUNTIME_DIR="$HOME/run"; mkdir -p -m 700 "$XDG_RUNTIME_DIR"
    export XDG_DATA_HOME="$HOME/share"; mkdir -p "$XDG_DATA_HOME"
    eval "$(printf 'benchmark-login' | gnome-keyring-daemon --unlock --components=secrets 2>/dev/null)" || true
    printf 'x' | secret-tool store --label=warmup service warmup user warmup
    /usr/bin/python3 - "$n" "$collection" <<'PY'
import sys, secretstorage
n = int(sys.argv[1])
connection = secretstorage.dbus_init()
if sys.argv[2] == "session":
    collection = secretstorage.Collection(connection, "/org/freedesktop/secrets/collection/session")
else:
    collection = secretstorage.get_default_collection(connection)
for i in range(n):
    # A fresh session collection holds no item to replace (and replacing searches the whole collection).
    collection.create_item(f"stress u-{i}", {"service": "stress", "user": f"u-{i}"}, f"secret-u-{i}".encode(), replace=sys.argv[2] != "session")
PY
    mid=$((n / 2))
    hyperfine --warmup 3 --runs "$runs" --style none --export-json "$results/secret-tool-lookup-$n.json" \
        -n "secret-tool lookup" "secret-tool lookup service stress user u-$mid >/dev/null"
    [[ "$collection" == "session" ]] && exit 0
    hyperfine --warmup 3 --runs "$runs" --style none --export-json "$results/secret-tool-store-$n.json" \
        -n "secret-tool store" "printf 'new-secret' | secret-tool store --label=bench service stress user u-$mid"
    exit 0
fi

while [[ $# -gt 0 ]]; do
    case "$1" in
        --sizes) SIZES="$2"; shift 2 ;;
        --runs) RUNS="$2"; shift 2 ;;
        --out) OUT="$2"; shift 2 ;;
        --tools) TOOLS="$2"; shift 2 ;;
        --results) RESULTS="$2"; shift 2 ;;
        --secret-tool-collection) COLLECTION="$2"; shift 2 ;;
        *) echo "unknown option $1" >&2; exit 64 ;;
    esac
done

wants() { [[ " $TOOLS " == *" $1 "* ]]; }
needed="hyperfine"
if wants secret-tool; then needed+=" secret-tool gnome-keyring-daemon dbus-run-session"; fi
if wants pass; then needed+=" pass gpg"; fi
for tool in $needed; do
    command -v "$tool" >/dev/null || { echo "missing $tool (see the header of $0)" >&2; exit 1; }
done
[[ "$OUT" == /* ]] || OUT="$ROOT/$OUT"

BUILD="release, static Swift runtime, no PIE"
if [[ -n "${LATCHKEY_BIN:-}" ]]; then BUILD="LATCHKEY_BIN=$LATCHKEY_BIN"; fi
if [[ -z "${LATCHKEY_BIN:-}" ]]; then
    # A static Swift runtime linked as a position-dependent executable: no dynamic symbol binding and no
    # relocation of the runtime's data pages at every start (about 40% less start-up work per process).
    (cd "$ROOT" && swift build -c release --static-swift-stdlib -Xlinker -no-pie --scratch-path .build-cli \
        --product latchkey >&2)
    LATCHKEY_BIN="$ROOT/.build-cli/release/latchkey"
fi

WORK="$(mktemp -d /tmp/latchkey-bench-XXXXXX)"
AGENT_PID=""
stop_agent() {
    if [[ -n "$AGENT_PID" ]]; then kill -TERM "$AGENT_PID" 2>/dev/null || true; wait "$AGENT_PID" 2>/dev/null || true; fi
    AGENT_PID=""
}
trap 'stop_agent; gpgconf --homedir "$WORK/gnupg" --kill gpg-agent 2>/dev/null || true; rm -rf "$WORK"' EXIT
RESULTS="${RESULTS:-$WORK/results}"; mkdir -p "$RESULTS"
load() { awk '{print $1}' /proc/loadavg; }

# pass: one throwaway gpg key (no passphrase) shared by every size.
if wants pass; then
export GNUPGHOME="$WORK/gnupg"; mkdir -m 700 "$GNUPGHOME"
gpg --batch --quiet --passphrase '' --quick-gen-key 'Latchkey Bench <bench@example.invalid>' ed25519 sign never 2>/dev/null
FPR="$(gpg --list-keys --with-colons bench@example.invalid | awk -F: '/^fpr/ {print $10; exit}')"
gpg --batch --quiet --passphrase '' --quick-add-key "$FPR" cv25519 encr never 2>/dev/null
fi

for n in $SIZES; do
    mid=$((n / 2))
    echo "== $n items" >&2

    # latchkey: a keychain unlocked by a key file, filled in one process.
    if wants latchkey; then
    dir="$WORK/latchkey-$n"; mkdir -m 700 "$dir"
    env -u LATCHKEY_PASSPHRASE -u LATCHKEY_PASSPHRASE_FILE -u LATCHKEY_KEY_FILE \
        LATCHKEY_DEVICE_SECRET="$dir/device-secret" \
        "$LATCHKEY_BIN" create-keychain -k "$dir/bench.keychain-db" --new-key-file "$dir/key" >/dev/null
    export LATCHKEY_KEYCHAIN="$dir/bench.keychain-db" LATCHKEY_KEY_FILE="$dir/key" LATCHKEY_DEVICE_SECRET="$dir/device-secret"
    export XDG_DATA_HOME="$dir/data"
    unset LATCHKEY_PASSPHRASE LATCHKEY_PASSPHRASE_FILE
    "$LATCHKEY_BIN" debug stress-add --prefix u --count "$n" >/dev/null
    hyperfine --warmup 3 --runs "$RUNS" --style none --export-json "$RESULTS/latchkey-lookup-$n.json" \
        -n "latchkey find-generic-password -w" "'$LATCHKEY_BIN' find-generic-password -s stress -a u-$mid -w >/dev/null"
    hyperfine --warmup 3 --runs "$RUNS" --style none --export-json "$RESULTS/latchkey-store-$n.json" \
        -n "latchkey add-generic-password -U" \
        "printf 'new-secret' | '$LATCHKEY_BIN' add-generic-password -U -s stress -a u-$mid --password-stdin"
    echo "latchkey $n $(load)" >>"$RESULTS/load.txt"
    unset LATCHKEY_KEYCHAIN LATCHKEY_KEY_FILE LATCHKEY_DEVICE_SECRET XDG_DATA_HOME
    fi

    # latchkey-agent: a passphrase keychain served by an agent unlocked once; clients carry no credential.
    if wants latchkey-agent; then
    dir="$WORK/latchkey-agent-$n"; mkdir -m 700 "$dir" "$dir/run" "$dir/data" "$dir/config" "$dir/state"
    passphrase="latchkey-bench agent passphrase"
    agent_env=(env -u LATCHKEY_PASSPHRASE -u LATCHKEY_PASSPHRASE_FILE -u LATCHKEY_KEY_FILE -u LATCHKEY_ACCESS_GROUPS
        LATCHKEY_KEYCHAIN="$dir/bench.keychain-db" LATCHKEY_DEVICE_SECRET="$dir/device-secret"
        XDG_RUNTIME_DIR="$dir/run" XDG_DATA_HOME="$dir/data" XDG_CONFIG_HOME="$dir/config" XDG_STATE_HOME="$dir/state")
    printf '%s' "$passphrase" | "${agent_env[@]}" "$LATCHKEY_BIN" create-keychain --passphrase-stdin >/dev/null
    "${agent_env[@]}" LATCHKEY_AGENT=off LATCHKEY_PASSPHRASE="$passphrase" \
        "$LATCHKEY_BIN" debug stress-add --prefix u --count "$n" >/dev/null
    "${agent_env[@]}" "$LATCHKEY_BIN" agent --foreground >"$dir/agent.out" 2>"$dir/agent.log" &
    AGENT_PID=$!
    for _ in $(seq 300); do grep -q '^ready ' "$dir/agent.out" 2>/dev/null && break; sleep 0.1; done
    grep -q '^ready ' "$dir/agent.out" || { echo "the agent did not start: $(cat "$dir/agent.log")" >&2; exit 1; }
    printf '%s' "$passphrase" | "${agent_env[@]}" "$LATCHKEY_BIN" unlock --passphrase-stdin >/dev/null
    "${agent_env[@]}" LATCHKEY_AGENT=required "$LATCHKEY_BIN" find-generic-password -s stress -a "u-$mid" -w \
        | grep -qx "secret-u-$mid" || { echo "the agent does not answer the lookup" >&2; exit 1; }
    (
        unset LATCHKEY_PASSPHRASE LATCHKEY_PASSPHRASE_FILE LATCHKEY_KEY_FILE LATCHKEY_ACCESS_GROUPS
        export "${agent_env[@]:9}" LATCHKEY_AGENT=required
        hyperfine --warmup 3 --runs "$RUNS" --style none --export-json "$RESULTS/latchkey-agent-lookup-$n.json" \
            -n "latchkey find-generic-password -w (agent)" \
            "'$LATCHKEY_BIN' find-generic-password -s stress -a u-$mid -w >/dev/null"
    )
    stop_agent
    echo "latchkey-agent $n $(load)" >>"$RESULTS/load.txt"
    fi

    # secret-tool: a fresh gnome-keyring in its own D-Bus session and home.
    if wants secret-tool; then
    home="$WORK/secret-tool-$n"; mkdir -p "$home"
    HOME="$home" dbus-run-session -- bash "$0" __secret_tool "$n" "$RESULTS" "$RUNS" "$COLLECTION" 2>/dev/null
    echo "secret-tool $n $(load)" >>"$RESULTS/load.txt"
    fi

    # pass: N entries, encrypted by one gpg process.
    if wants pass; then
    store="$WORK/pass-$n"; mkdir -p "$store/stress"
    PASSWORD_STORE_DIR="$store" pass init "$FPR" >/dev/null
    (
        cd "$store/stress"
        for ((i = 0; i < n; i++)); do printf 'secret-u-%s\n' "$i" >"u-$i"; done
        find . -maxdepth 1 -type f -name 'u-*' -print0 | xargs -0 gpg --batch --yes --quiet -r "$FPR" --encrypt --multifile
        find . -maxdepth 1 -type f -name 'u-*' ! -name '*.gpg' -delete
    )
    export PASSWORD_STORE_DIR="$store"
    hyperfine --warmup 3 --runs "$RUNS" --style none --export-json "$RESULTS/pass-lookup-$n.json" \
        -n "pass show" "pass show stress/u-$mid >/dev/null"
    hyperfine --warmup 3 --runs "$RUNS" --style none --export-json "$RESULTS/pass-store-$n.json" \
        -n "pass insert" "printf 'new-secret\n' | pass insert -m -f stress/u-$mid >/dev/null"
    echo "pass $n $(load)" >>"$RESULTS/load.txt"
    unset PASSWORD_STORE_DIR
    fi
done

MACHINE="$(nproc) cores, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo), $(free -g | awk '/Mem:/ {print $2}') GiB RAM, $(uname -sr)"
VERSIONS="latchkey $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?') ($BUILD), \
secret-tool/libsecret $(dpkg-query -W -f '${Version}' libsecret-tools 2>/dev/null), \
gnome-keyring $(dpkg-query -W -f '${Version}' gnome-keyring 2>/dev/null), \
pass $(dpkg-query -W -f '${Version}' pass 2>/dev/null), gpg $(gpg --version | awk 'NR==1 {print $3}'), \
hyperfine $(hyperfine --version | awk '{print $2}')"

/usr/bin/python3 - "$RESULTS" "$SIZES" "$RUNS" "$MACHINE" "$VERSIONS" >"$OUT" <<'PY'
import json, os, sys, datetime
results, sizes, runs, machine, versions = sys.argv[1], sys.argv[2].split(), sys.argv[3], sys.argv[4], sys.argv[5]
tools = ("latchkey", "latchkey-agent", "secret-tool", "pass")
def load(tool, op, n):
    path = f"{results}/{tool}-{op}-{n}.json"
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)["results"][0]
def wall(r):
    times = sorted(r["times"])
    p95 = times[min(len(times) - 1, int(round(0.95 * (len(times) - 1))))]
    return f"{r['median'] * 1000:.1f} ms ({p95 * 1000:.1f})"
def cpu(r):
    return f"{(r['user'] + r['system']) * 1000:.1f} ms"
def ratio(a, b):
    return f"{b['median'] / a['median']:.1f}×" if a and b else "—"
loads = {}
if os.path.exists(f"{results}/load.txt"):
    for line in open(f"{results}/load.txt"):
        tool, n, value = line.split()
        loads[(tool, n)] = value
print("# CLI benchmarks: latchkey vs secret-tool vs pass")
print()
print(f"Generated by `scripts/bench-cli.sh` on {datetime.date.today().isoformat()}. Machine: {machine}.")
print(f"Versions: {versions}.")
print()
print(f"Each cell is the **median wall time of one whole process** (start, unlock, operation, exit) over {runs} runs")
print("after 3 warm-ups, measured by hyperfine through a shell whose start-up hyperfine subtracts; p95 in")
print("parentheses. *lookup* prints one password; *store* replaces the password of an existing item. latchkey")
print("unlocks with a key file (`LATCHKEY_KEY_FILE`); gnome-keyring's collection was unlocked once when its daemon")
print("started (under `dbus-run-session`); pass uses a gpg key without passphrase and a warm gpg-agent.")
print()
print("| Operation | Items | latchkey | latchkey (agent) | secret-tool | pass | secret-tool / latchkey | secret-tool / agent | pass / latchkey |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for op, label in (("lookup", "lookup (`find-generic-password -w`)"), ("store", "store (`add-generic-password -U`)")):
    for n in sizes:
        r = {t: load(t, op, n) for t in tools}
        cells = [wall(r[t]) if r[t] else "—" for t in tools]
        lk = r["latchkey"]
        agent = r["latchkey-agent"]
        print(f"| {label} | {int(n):,} | " + " | ".join(cells) + f" | {ratio(lk, r['secret-tool'])} | {ratio(agent, r['secret-tool'])} | {ratio(lk, r['pass'])} |")
print()
print("CPU time of the measured process (user + system, mean). secret-tool's figure leaves out the work done")
print("by gnome-keyring-daemon, which runs in another process; gpg-agent's is likewise left out for pass.")
print()
print("| Operation | Items | latchkey | latchkey (agent, client only) | secret-tool (client only) | pass (client only) |")
print("| --- | ---: | ---: | ---: | ---: | ---: |")
for op in ("lookup", "store"):
    for n in sizes:
        r = {t: load(t, op, n) for t in tools}
        print(f"| {op} | {int(n):,} | " + " | ".join(cpu(r[t]) if r[t] else "—" for t in tools) + " |")
if loads:
    print()
    print("1-minute load average when each tool's runs ended (the machine is shared; a load above the core")
    print("count lengthens wall times): " + ", ".join(f"{t} {n}: {v}" for (t, n), v in sorted(loads.items())) + ".")
PY
echo "wrote $OUT" >&2
