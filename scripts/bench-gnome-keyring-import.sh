#!/usr/bin/env bash
# Times `latchkey import --from gnome-keyring` of a keyring of N items (default 1000) written by the real
# gnome-keyring (Debian's gnome-keyring-daemon on a private bus), in process (LATCHKEY_AGENT=off) and through
# the agent, each into a new keychain; the median of RUNS runs (default 5). Usage:
#   scripts/bench-gnome-keyring-import.sh [N] [LATCHKEY]     (LATCHKEY defaults to .build/debug/latchkey)
# Needs gnome-keyring, dbus-daemon (dbus-run-session), libglib2.0-bin (gdbus) and python3-dbus.
set -euo pipefail
count=${1:-1000}
latchkey=$(realpath "${2:-.build/debug/latchkey}")
runs=${RUNS:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/home" "$work/data" "$work/run" && chmod 700 "$work/run"

# 1. The keyring, written by gnome-keyring: `login`, password "bench password", N items.
cat > "$work/fill.py" <<'PY'
import dbus, sys
bus = dbus.SessionBus()
service = bus.get_object('org.freedesktop.secrets', '/org/freedesktop/secrets')
_, session = service.OpenSession('plain', dbus.String('', variant_level=1), dbus_interface='org.freedesktop.Secret.Service')
login = dbus.Interface(bus.get_object('org.freedesktop.secrets', '/org/freedesktop/secrets/collection/login'),
    'org.freedesktop.Secret.Collection')
for n in range(int(sys.argv[1])):
    properties = {
        'org.freedesktop.Secret.Item.Label': dbus.String('Item %d' % n, variant_level=1),
        'org.freedesktop.Secret.Item.Attributes': dbus.Dictionary(
            {'service': 'bench.example', 'username': 'user%d' % n, 'xdg:schema': 'org.example.Bench'},
            signature='ss', variant_level=1),
    }
    login.CreateItem(properties, (session, dbus.ByteArray(b''), dbus.ByteArray(b'secret-%d' % n), 'text/plain'), True)
PY
cat > "$work/fill.sh" <<'SH'
gnome-keyring-daemon --foreground --unlock --components=secrets < "$WORK/password" > /dev/null 2>&1 &
daemon=$!
gdbus wait --session --timeout 60 org.freedesktop.secrets
/usr/bin/python3 "$WORK/fill.py" "$COUNT"
kill -9 "$daemon"; wait "$daemon" 2>/dev/null || true
SH
printf 'bench password' > "$work/password"
HOME="$work/home" XDG_DATA_HOME="$work/data" XDG_RUNTIME_DIR="$work/run" WORK="$work" COUNT="$count" \
  dbus-run-session -- bash "$work/fill.sh" 2>/dev/null
ls -l "$work/data/keyrings/login.keyring"

# 2. The imports.
export XDG_DATA_HOME="$work/data" LATCHKEY_IMPORT_PASSPHRASE="bench password"
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
now() { date +%s.%N; }
in_process=() through_agent=()
for run in $(seq "$runs"); do
  dir="$work/k$run" && mkdir -p "$dir/run/latchkey" && chmod -R 700 "$dir/run"
  export LATCHKEY_KEYCHAIN="$dir/in.keychain-db" LATCHKEY_DEVICE_SECRET="$dir/device" XDG_CONFIG_HOME="$dir/config"
  export XDG_RUNTIME_DIR="$dir/run"
  printf 'p' | LATCHKEY_AGENT=off "$latchkey" create-keychain --kdf-cost testing --passphrase-stdin > /dev/null
  start=$(now)
  LATCHKEY_AGENT=off LATCHKEY_PASSPHRASE=p "$latchkey" import --from gnome-keyring > "$dir/in.out"
  in_process+=("$(echo "$(now) - $start" | bc)")
  grep -q "^imported $count items" "$dir/in.out" || { cat "$dir/in.out"; exit 1; }
  export LATCHKEY_KEYCHAIN="$dir/agent.keychain-db"
  printf 'p' | LATCHKEY_AGENT=off "$latchkey" create-keychain --kdf-cost testing --passphrase-stdin > /dev/null
  "$latchkey" agent --foreground --pinentry none > "$dir/agent.out" 2>&1 &
  agent=$!
  until grep -q '^ready' "$dir/agent.out" 2>/dev/null; do sleep 0.05; done
  printf 'p' | "$latchkey" unlock --passphrase-stdin
  "$latchkey" access grant "$latchkey" org.freedesktop.secrets > /dev/null
  start=$(now)
  "$latchkey" import --from gnome-keyring > "$dir/agent-import.out"
  through_agent+=("$(echo "$(now) - $start" | bc)")
  grep -q "^imported $count items" "$dir/agent-import.out" || { cat "$dir/agent-import.out"; exit 1; }
  kill "$agent"; wait "$agent" 2>/dev/null || true
done
echo "import of $count items, median of $runs: in process $(printf '%s\n' "${in_process[@]}" | median) s," \
  "through the agent $(printf '%s\n' "${through_agent[@]}" | median) s"
