#!/usr/bin/env bash
# Secret Service benchmark (issue 16): `latchkey agent --secret-service` against gnome-keyring-daemon, each
# on its own private session bus (dbus-run-session) with its own HOME and XDG directories, at the same item
# counts, measured by one python `secretstorage`/jeepney client per provider and size.
#
#   scripts/bench-secret-service.sh [--sizes "10 1000 10000"] [--iterations 200] [--warmup 20]
#                                   [--providers "latchkey gnome-keyring"] [--results DIR] [--out FILE]
#
# For each size N and provider: N items {"service": "stress", "username": "u-<i>"} are created through the
# bus (CreateItem, plain session, one at a time), then in one python process, each timed with
# time.perf_counter_ns over --iterations calls after --warmup calls:
#   search-plain  Service.SearchItems({"service": "stress", "username": "u-<N/2>"}) + Item.GetSecret, plain session
#   search-dh     the same over a dh-ietf1024-sha256-aes128-cbc-pkcs7 session (secretstorage's default),
#                 the client's AES decryption included
#   update        Collection.CreateItem(replace=True) of an existing item (u-<N/3>), dh session
#   create        Collection.CreateItem(replace=True) of a new item (new-<k>), dh session
#   ping          two org.freedesktop.DBus.Peer.Ping calls to the provider: the floor of two round trips
#                 through the bus daemon and the client, which search-* cannot go below
#   search-only   SearchItems alone; getsecret-only: GetSecret alone (plain session, the path known)
# replace=True is what libsecret (secret-tool store, secret_password_store) sends.
#
# latchkey: a keychain protected by a key file (LATCHKEY_KEY_FILE in the agent's environment, so the agent
# is unlocked at start); items go to the `default` alias (the login keychain).
# gnome-keyring: `gnome-keyring-daemon --foreground --unlock --components=secrets`, the login collection
# created and unlocked at start with a password on stdin (as scripts/bench-cli.sh does). Its file-backed
# login collection is rewritten whole on every write (filling it with 10 000 items took about 35 minutes),
# so at N >= GK_SESSION_FROM (default 10000) the N items go to its in-memory `session` collection
# (/org/freedesktop/secrets/collection/session): SearchItems on the Service searches every collection, and
# `update` replaces an item of the session collection; `create` (a new item in the login collection at N)
# is then not measured.
#
# Writes a Markdown table on standard output (and to --out if given); the raw figures stay in DIR as JSON.
# Needs (Debian): dbus-daemon (dbus-run-session) gnome-keyring python3-secretstorage, and the release binary
# (LATCHKEY_BIN, default .build-cli/release/latchkey as scripts/bench-cli.sh builds it).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
LATCHKEY_BIN="${LATCHKEY_BIN:-$ROOT/.build-cli/release/latchkey}"
GK_SESSION_FROM="${GK_SESSION_FROM:-10000}"
FILL_LIMIT="${FILL_LIMIT:-480}" # seconds: a fill projected to take longer is stopped and the size skipped
if [[ -z "${PYTHON:-}" ]]; then
    if "$ROOT/.venv-oauth/bin/python" -c 'import secretstorage' 2>/dev/null; then PYTHON="$ROOT/.venv-oauth/bin/python"
    else PYTHON=/usr/bin/python3; fi
fi
export PYTHON LATCHKEY_BIN GK_SESSION_FROM FILL_LIMIT

# The client: fills the collection, then times the four operations; writes one JSON object to $out.
client() {
    "$PYTHON" - "$@" <<'PY'
import json, os, sys, time
import secretstorage
from secretstorage.util import DBusAddressWrapper, open_session, format_secret
from secretstorage.dhcrypto import Session
from secretstorage.defines import SS_PATH, SS_PREFIX
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

provider, n, collection_path, out, iterations, warmup, do_create = sys.argv[1:8]
n, iterations, warmup, do_create = int(n), int(iterations), int(warmup), do_create == "1"
fill_limit = float(os.environ.get("FILL_LIMIT", "480"))
connection = secretstorage.dbus_init()
service = DBusAddressWrapper(SS_PATH, SS_PREFIX + "Service", connection)
for _ in range(100):  # the provider may still be claiming the name
    try:
        service.call("ReadAlias", "s", "default"); break
    except Exception:
        time.sleep(0.1)
if collection_path == "default":
    collection_path = service.call("ReadAlias", "s", "default")[0]
collection = DBusAddressWrapper(collection_path, SS_PREFIX + "Collection", connection)

plain = Session()
plain.object_path = service.call("OpenSession", "sv", "plain", ("s", ""))[1]
plain.encrypted = False
dh = open_session(connection)
assert dh.encrypted

def props(label, attributes):
    return {SS_PREFIX + "Item.Label": ("s", label), SS_PREFIX + "Item.Attributes": ("a{ss}", attributes)}

def create(session, label, attributes, secret, replace):
    item, prompt = collection.call("CreateItem", "a{sv}(oayays)b", props(label, attributes),
                                   format_secret(session, secret, "text/plain"), replace)
    assert prompt == "/", prompt
    return item

def loadavg():
    with open("/proc/loadavg") as f:
        return f.read().strip()

result = {"provider": provider, "n": n, "collection": collection_path, "load_before": loadavg()}
start = time.perf_counter()
filled = 0
for i in range(n):
    create(plain, f"stress u-{i}", {"service": "stress", "username": f"u-{i}"}, f"secret-u-{i}".encode(), False)
    filled = i + 1
    elapsed = time.perf_counter() - start
    if filled % 250 == 0 and elapsed / filled * n > fill_limit:
        break
result["fill_seconds"] = time.perf_counter() - start
result["filled"] = filled
result["fill_ms_per_item"] = result["fill_seconds"] * 1000 / max(filled, 1)
if filled < n:
    result["error"] = f"fill too slow: {filled} items in {result['fill_seconds']:.0f} s"
    json.dump(result, open(out, "w"), indent=1)
    print(result["error"], file=sys.stderr)
    sys.exit(0)

mid = n // 2
query = {"service": "stress", "username": f"u-{mid}"}
expected = f"secret-u-{mid}".encode()

def lookup(session):
    unlocked, locked = service.call("SearchItems", "a{ss}", query)
    assert len(unlocked) == 1 and not locked, (unlocked, locked)
    item = DBusAddressWrapper(unlocked[0], SS_PREFIX + "Item", connection)
    secret, = item.call("GetSecret", "o", session.object_path)
    if not session.encrypted:
        return bytes(secret[2])
    decryptor = Cipher(algorithms.AES(session.aes_key), modes.CBC(bytes(secret[1]))).decryptor()
    padded = decryptor.update(bytes(secret[2])) + decryptor.finalize()
    return padded[:-padded[-1]]

def timed(name, call):
    for _ in range(warmup):
        call()
    times = []
    for _ in range(iterations):
        t0 = time.perf_counter_ns()
        call()
        times.append(time.perf_counter_ns() - t0)
    times.sort()
    result[name] = {
        "median_us": times[len(times) // 2] / 1000 if len(times) % 2 else (times[len(times) // 2 - 1] + times[len(times) // 2]) / 2000,
        "p95_us": times[min(len(times) - 1, round(0.95 * (len(times) - 1)))] / 1000,
        "mean_us": sum(times) / len(times) / 1000,
        "runs": len(times),
        "load": loadavg(),
    }

assert lookup(plain) == expected and lookup(dh) == expected
peer = DBusAddressWrapper(SS_PATH, "org.freedesktop.DBus.Peer", connection)
timed("ping", lambda: (peer.call("Ping", ""), peer.call("Ping", "")))
found = service.call("SearchItems", "a{ss}", query)[0][0]
found_item = DBusAddressWrapper(found, SS_PREFIX + "Item", connection)
timed("search-only", lambda: service.call("SearchItems", "a{ss}", query))
timed("getsecret-only", lambda: found_item.call("GetSecret", "o", plain.object_path))
timed("search-plain", lambda: lookup(plain))
timed("search-dh", lambda: lookup(dh))
third = n // 3
counter = iter(range(10**9))
timed("update", lambda: create(dh, f"stress u-{third}", {"service": "stress", "username": f"u-{third}"},
                               f"updated-{next(counter)}".encode(), True))
if do_create:
    timed("create", lambda: (k := next(counter),
                             create(dh, f"new {k}", {"service": "stress", "username": f"new-{k}"}, b"new-secret", True)))
# The update replaced the item (one item per attribute map), it did not add duplicates.
unlocked, locked = service.call("SearchItems", "a{ss}", {"service": "stress", "username": f"u-{third}"})
result["items_after_update"] = len(unlocked) + len(locked)
assert lookup(plain) == expected
json.dump(result, open(out, "w"), indent=1)
PY
}

# Inner mode, run inside dbus-run-session with HOME set: start one provider, run the client, stop it.
if [[ "${1:-}" == "__inner" ]]; then
    provider="$2"; n="$3"; out="$4"; iterations="$5"; warmup="$6"
    export XDG_RUNTIME_DIR="$HOME/run" XDG_DATA_HOME="$HOME/share" XDG_CONFIG_HOME="$HOME/config" XDG_STATE_HOME="$HOME/state"
    mkdir -p -m 700 "$XDG_RUNTIME_DIR" "$XDG_DATA_HOME" "$XDG_CONFIG_HOME" "$XDG_STATE_HOME"
    unset LATCHKEY_PASSPHRASE LATCHKEY_PASSPHRASE_FILE LATCHKEY_KEY_FILE LATCHKEY_ACCESS_GROUPS LATCHKEY_AGENT LATCHKEY_KEYCHAIN
    PID=""
    trap '[[ -n "$PID" ]] && { kill -TERM "$PID" 2>/dev/null; wait "$PID" 2>/dev/null; }; true' EXIT
    if [[ "$provider" == latchkey ]]; then
        export LATCHKEY_KEYCHAIN="$HOME/bench.keychain-db" LATCHKEY_DEVICE_SECRET="$HOME/device-secret"
        "$LATCHKEY_BIN" create-keychain -k "$LATCHKEY_KEYCHAIN" --new-key-file "$HOME/key" >/dev/null
        LATCHKEY_KEY_FILE="$HOME/key" "$LATCHKEY_BIN" agent --foreground --secret-service --pinentry none \
            >"$HOME/agent.out" 2>"$HOME/agent.log" &
        PID=$!
        echo "$PID" >"$HOME/provider.pid"
        for _ in $(seq 300); do grep -q '^secret-service ready' "$HOME/agent.out" 2>/dev/null && break; sleep 0.1; done
        grep -q '^secret-service ready' "$HOME/agent.out" || { echo "the agent did not start: $(cat "$HOME/agent.log")" >&2; exit 1; }
        client latchkey "$n" default "$out" "$iterations" "$warmup" 1
        if grep -v ' info ' "$HOME/agent.log" | grep -q .; then
            echo "agent stderr ($n):" >&2; grep -v ' info ' "$HOME/agent.log" | tail -5 >&2
        fi
    else
        printf 'benchmark-login' | gnome-keyring-daemon --foreground --unlock --components=secrets \
            >"$HOME/gk.out" 2>"$HOME/gk.log" &
        PID=$!
        echo "$PID" >"$HOME/provider.pid"
        for _ in $(seq 100); do
            dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
                org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null | grep -q true && break
            sleep 0.1
        done
        if ((n >= GK_SESSION_FROM)); then
            client gnome-keyring "$n" /org/freedesktop/secrets/collection/session "$out" "$iterations" "$warmup" 0
        else
            client gnome-keyring "$n" default "$out" "$iterations" "$warmup" 1
        fi
    fi
    exit 0
fi

SIZES="10 1000 10000"
ITERATIONS=200
WARMUP=20
PROVIDERS="latchkey gnome-keyring"
RESULTS=""
OUT=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --sizes) SIZES="$2"; shift 2 ;;
        --iterations) ITERATIONS="$2"; shift 2 ;;
        --warmup) WARMUP="$2"; shift 2 ;;
        --providers) PROVIDERS="$2"; shift 2 ;;
        --results) RESULTS="$2"; shift 2 ;;
        --out) OUT="$2"; shift 2 ;;
        *) echo "unknown option $1" >&2; exit 64 ;;
    esac
done
for tool in dbus-run-session dbus-send gnome-keyring-daemon "$LATCHKEY_BIN"; do
    command -v "$tool" >/dev/null || { echo "missing $tool (see the header of $0)" >&2; exit 1; }
done
"$PYTHON" -c 'import secretstorage' || { echo "$PYTHON has no secretstorage (apt-get install python3-secretstorage)" >&2; exit 1; }

WORK="$(mktemp -d /tmp/latchkey-ss-bench-XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
RESULTS="${RESULTS:-$WORK/results}"; mkdir -p "$RESULTS"
for n in $SIZES; do
    for provider in $PROVIDERS; do
        echo "== $provider, $n items ($(date -u +%H:%M:%S), load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
        home="$WORK/$provider-$n"; mkdir -m 700 "$home"
        HOME="$home" dbus-run-session -- bash "$0" __inner "$provider" "$n" "$RESULTS/$provider-$n.json" "$ITERATIONS" "$WARMUP" \
            2> >(grep -v 'Failed to set fd limit' >&2) || echo "$provider at $n failed" >&2
        rm -rf "$home"
    done
done

MACHINE="$(nproc) cores, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo), $(uname -sr)"
VERSIONS="latchkey $LATCHKEY_BIN built $(date -u -r "$LATCHKEY_BIN" +'%Y-%m-%d %H:%M UTC') (HEAD $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')), \
gnome-keyring $(dpkg-query -W -f '${Version}' gnome-keyring 2>/dev/null), \
secretstorage $("$PYTHON" -c 'import secretstorage; print(secretstorage.__version__)')"
"$PYTHON" - "$RESULTS" "$SIZES" "$MACHINE" "$VERSIONS" <<'PY' | tee ${OUT:+"$OUT"}
import json, os, sys
results, sizes, machine, versions = sys.argv[1], sys.argv[2].split(), sys.argv[3], sys.argv[4]
def load(p, n):
    path = f"{results}/{p}-{n}.json"
    return json.load(open(path)) if os.path.exists(path) else {}
print(f"Machine: {machine}. Versions: {versions}.")
print()
print("| Operation | Items | latchkey median (p95) | gnome-keyring median (p95) | latchkey / gnome-keyring |")
print("| --- | ---: | ---: | ---: | ---: |")
ops = (("ping", "floor: two Peer.Ping round trips"), ("search-only", "SearchItems alone"), ("getsecret-only", "GetSecret alone, plain session"),
       ("search-plain", "SearchItems + GetSecret, plain session"), ("search-dh", "SearchItems + GetSecret, dh session"),
       ("update", "CreateItem replace=True, existing item"), ("create", "CreateItem, new item"))
for op, label in ops:
    for n in sizes:
        lk, gk = load("latchkey", n).get(op), load("gnome-keyring", n).get(op)
        cell = lambda r: f"{r['median_us']:,.0f} µs ({r['p95_us']:,.0f})" if r else "—"
        ratio = f"{lk['median_us'] / gk['median_us']:.2f}" if lk and gk else "—"
        print(f"| {label} | {int(n):,} | {cell(lk)} | {cell(gk)} | {ratio} |")
print()
for p in ("latchkey", "gnome-keyring"):
    for n in sizes:
        r = load(p, n)
        if not r:
            continue
        loads = "; ".join(f"{op} {r[op]['load'].split()[0]}" for op, _ in ops if op in r)
        extra = f", error: {r['error']}" if "error" in r else ""
        print(f"- {p} {int(n):,}: collection {r['collection']}, fill {r['filled']:,} items in {r['fill_seconds']:.1f} s "
              f"({r['fill_ms_per_item']:.2f} ms/item); load before {r['load_before'].split()[0]}; 1-min load after {loads}{extra}")
PY
