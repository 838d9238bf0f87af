# common.sh: what the test peers (frr-device.sh, netconf-device.sh) share, sourced by both:
# recorded-pid bookkeeping (is the process we started still that process, its sshd children,
# TERM-then-KILL), the private loopback sshd (host keys, sshd_config, waiting for it to accept and
# stopping it with its per-connection children), installing missing packages, and the
# {start|stop|status|restart} dispatch.
#
# The sourcing script sets, before calling anything here:
#   PEER_NAME   prefix of its messages (frr-device, netconf-device)
#   STATE HOST PORT USERNAME   its state dir and ssh endpoint
# and defines exe_for NAME (the executable a recorded NAME.pid must be), start, stop, print_info.

die() { echo "$PEER_NAME: $*" >&2; exit 1; }

# prints the pid if the process recorded in $STATE/$1.pid is alive (not a
# zombie) and is the expected executable
alive_pid() {
  local f="$STATE/$1.pid" pid st exe
  [ -s "$f" ] || return 1
  pid=$(tr -dc '0-9' < "$f")
  [ -n "$pid" ] && [ -d "/proc/$pid" ] || return 1
  st=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) || return 1
  [ "$st" != "Z" ] || return 1
  exe=$(readlink "/proc/$pid/exe" 2>/dev/null) || return 1
  [ "$exe" = "$(exe_for "$1")" ] || return 1
  echo "$pid"
}

# one line per recorded process (NAME: running/stopped); fails when any is stopped
peer_status() {
  local ok=0 p pid
  for p in "$@"; do
    if pid=$(alive_pid "$p"); then echo "$p: running (pid $pid)"; else echo "$p: stopped"; ok=1; fi
  done
  return $ok
}

# install_packages " pkg1 pkg2" NO_INSTALL: apt-get install the (space-prefixed) list unless it is
# empty; with NO_INSTALL=1 say what is missing and stop instead
install_packages() {
  local missing=$1
  [ -z "$missing" ] && return 0
  [ "${2:-0}" = 1 ] && die "missing packages:$missing (apt-get install$missing)"
  echo "$PEER_NAME: installing$missing" >&2
  export DEBIAN_FRONTEND=noninteractive
  # shellcheck disable=SC2086
  apt-get install -y --no-install-recommends $missing >/dev/null 2>&1 ||
    { apt-get update >/dev/null 2>&1 && apt-get install -y --no-install-recommends $missing >/dev/null 2>&1; } ||
    die "apt-get install$missing failed"
}

# write_sshd_files COMMENT [EXTRA_LINES]: host keys (kept across runs) and $STATE/sshd_config for a
# password-only, loopback-only sshd that lets $USERNAME in and nobody else
write_sshd_files() {
  [ -f "$STATE/ssh_host_ed25519_key" ] || ssh-keygen -q -t ed25519 -N '' -f "$STATE/ssh_host_ed25519_key" || die "ssh-keygen failed"
  [ -f "$STATE/ssh_host_rsa_key" ] || ssh-keygen -q -t rsa -b 2048 -N '' -f "$STATE/ssh_host_rsa_key" || die "ssh-keygen failed"
  cat > "$STATE/sshd_config" <<EOF
# $1; loopback only
Port $PORT
ListenAddress $HOST
HostKey $STATE/ssh_host_ed25519_key
HostKey $STATE/ssh_host_rsa_key
PidFile $STATE/sshd.pid
UsePAM no
PasswordAuthentication yes
KbdInteractiveAuthentication no
PubkeyAuthentication yes
PermitRootLogin no
PermitEmptyPasswords no
AllowUsers $USERNAME
StrictModes no
UseDNS no
PrintMotd no
PrintLastLog no
MaxStartups 200:30:400
MaxSessions 64
MaxAuthTries 6
LoginGraceTime 30
X11Forwarding no
AllowTcpForwarding no
AllowAgentForwarding no
PermitTunnel no
LogLevel INFO
${2:-}
EOF
  mkdir -p /run/sshd && chmod 755 /run/sshd
}

# waits (5 s) until the recorded sshd is alive and accepts on $HOST:$PORT; stops the peer and exits if not
wait_for_sshd() {
  local i=0
  until alive_pid sshd >/dev/null && (exec 3<>"/dev/tcp/$HOST/$PORT") 2>/dev/null; do
    i=$((i+1)); [ $i -gt 50 ] && { echo "$PEER_NAME: sshd did not come up, see $STATE/sshd.log" >&2; stop; exit 1; }
    sleep 0.1
  done
}

# pids whose parent is $1 (read from /proc, field 4 of stat after the "(comm)")
children_of() {
  local parent=$1 f rest
  for f in /proc/[0-9]*/stat; do
    rest=$(cat "$f" 2>/dev/null) || continue
    rest=${rest##*) }
    # shellcheck disable=SC2086
    set -- $rest
    [ "${2:-}" = "$parent" ] && { f=${f#/proc/}; echo "${f%/stat}"; }
  done
}

# TERM, then KILL after 5 s; returns once the process is gone or a zombie
kill_pid_wait() {
  local pid=$1 i=0
  kill -TERM "$pid" 2>/dev/null || return 0
  while [ -d "/proc/$pid" ] && [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" != Z ]; do
    i=$((i+1))
    if [ $i -gt 50 ]; then kill -KILL "$pid" 2>/dev/null; break; fi
    sleep 0.1
  done
}

# stops the recorded sshd listener and its per-connection sshd children (only those)
stop_sshd() {
  local pid child
  if pid=$(alive_pid sshd); then
    for child in $(children_of "$pid"); do
      [ "$(readlink "/proc/$child/exe" 2>/dev/null)" = /usr/sbin/sshd ] && kill -TERM "$child" 2>/dev/null
    done
    kill_pid_wait "$pid"
  fi
}

# the command line: peer_main "$@"
peer_main() {
  case "${1:-}" in
    start) start ;;
    stop) stop ;;
    status) if status; then print_info; exit 0; else exit 3; fi ;;
    restart) stop; start ;;
    *) echo "usage: $0 {start|stop|status|restart}" >&2; exit 2 ;;
  esac
}
