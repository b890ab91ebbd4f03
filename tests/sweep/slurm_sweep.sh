#!/usr/bin/env bash
# CTest "sweep: slurm backend on a one-node cluster" (docs/sweep.md, "How it is
# verified"). Starts a Slurm cluster of one node on the loopback address:
# munged, slurmctld and slurmd from Debian's munge and slurm-wlm, with a key,
# a slurm.conf, state, spool and logs in a temporary folder. Runs the sweep
# manifest once with the local backend and once through sbatch, and checks the
# two reports (report.csv, report.json, the plots) are the same bytes. Stops
# every process it started by pid, also when a step fails or the time bound
# runs out. Exits 77 (skipped) when the daemons cannot start here, saying why.
#   slurm_sweep.sh CELLO MANIFEST [SECONDS]
set -u
cello=$1
manifest=$2
bound=${3:-120}

skip() {
  echo "SKIP: $*"
  exit 77
}
for tool in munged slurmctld slurmd sbatch squeue sinfo scancel; do
  command -v "$tool" >/dev/null || skip "$tool is not installed (scripts/setup.sh installs munge and slurm-wlm)"
done
[ "$(id -u)" -eq 0 ] || skip "slurmd must run as root to start jobs, and this runs as $(id -un)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cello-slurm.XXXXXX") || skip "cannot create a temporary folder"
conf=$tmp/slurm.conf
pids=()
status=1

# Processes of this cluster: the daemons we started, and every process that
# carries this cluster's SLURM_CONF (slurmstepd and the tasks it runs).
cluster_pids() {
  local p
  for p in "${pids[@]}"; do echo "$p"; done
  for p in /proc/[0-9]*; do
    [ "${p#/proc/}" = "$$" ] && continue
    { tr '\0' '\n' <"$p/environ"; } 2>/dev/null | grep -qxF "SLURM_CONF=$conf" && echo "${p#/proc/}"
  done
}
cleanup() {
  trap - EXIT INT TERM
  [ -n "${SLURM_CONF:-}" ] && timeout 5 scancel --user=root >/dev/null 2>&1
  local victims p i
  victims=$(cluster_pids | sort -u)
  for p in $victims; do kill -TERM "$p" 2>/dev/null; done
  for i in $(seq 50); do
    alive=0
    for p in $victims; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ $alive = 0 ] && break
    sleep 0.1
  done
  for p in $victims; do kill -KILL "$p" 2>/dev/null; done
  if [ "$status" = 0 ]; then
    rm -rf "$tmp"
  else
    for log in munged.log slurmctld.log slurmd.log; do
      [ -s "$tmp/$log" ] && { echo "--- last lines of $tmp/$log"; tail -n 15 "$tmp/$log"; }
    done
    echo "state and logs kept in $tmp"
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'echo "interrupted"; status=1; cleanup' INT TERM

# The time bound: every wait below is bounded, and each cello run gets the
# time that is left (timeout kills it past that, and the test fails).
deadline=$(( $(date +%s) + bound ))
bounded() {
  local left=$(( deadline - $(date +%s) ))
  [ "$left" -gt 0 ] || { echo "FAIL: the test took more than $bound s"; return 124; }
  timeout --kill-after=5 "$left" "$@"
  local rc=$?
  [ $rc = 124 ] && echo "FAIL: the test took more than $bound s (killed: $*)"
  return $rc
}

# Two free TCP ports on the loopback address.
free_port() {
  local p
  for p in $(seq "$1" 65000); do
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      echo "$p"
      return
    fi
  done
}
base=$(( 20000 + ($$ % 20000) ))
ctl_port=$(free_port "$base")
node_port=$(free_port $(( ctl_port + 1 )))

mkdir -p "$tmp/state" "$tmp/spool" "$tmp/munge"
chmod 700 "$tmp/munge"
dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 status=none
chmod 600 "$tmp/munge/munge.key"
sock=$tmp/munge/munge.socket
munged -F --force --key-file="$tmp/munge/munge.key" --socket="$sock" --pid-file="$tmp/munge/munged.pid" \
  --log-file="$tmp/munged.log" --seed-file="$tmp/munge/munge.seed" >"$tmp/munged.out" 2>&1 &
pids+=($!)
for i in $(seq 50); do [ -S "$sock" ] && break; sleep 0.1; done
[ -S "$sock" ] || { status=77; echo "SKIP: munged did not start: $(tail -n 1 "$tmp/munged.log" 2>/dev/null)"; exit 77; }

cpus=$(nproc)
cat >"$conf" <<EOF
ClusterName=cellotest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctl_port
SlurmdPort=$node_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
SchedulerParameters=sched_min_interval=0,sched_interval=1
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
MinJobAge=60
NodeName=cellonode NodeAddr=127.0.0.1 NodeHostname=localhost CPUs=$cpus RealMemory=1000 State=UNKNOWN
PartitionName=cellotest Nodes=cellonode Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$conf

slurmctld -D -i -f "$conf" >"$tmp/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$conf" -N cellonode >"$tmp/slurmd.out" 2>&1 &
pids+=($!)
state=""
for i in $(seq 150); do
  state=$(timeout 5 sinfo -h -n cellonode -o %T 2>/dev/null)
  [ "$state" = idle ] && break
  for p in "${pids[@]}"; do
    kill -0 "$p" 2>/dev/null || { status=77; echo "SKIP: a Slurm daemon exited at start: $(tail -n 2 "$tmp"/slurm*.out "$tmp"/slurm*.log 2>/dev/null | tr '\n' ' ')"; exit 77; }
  done
  sleep 0.2
done
[ "$state" = idle ] || { status=77; echo "SKIP: the node did not come up (state \"$state\"): $(tail -n 1 "$tmp/slurmd.log" 2>/dev/null)"; exit 77; }
echo "cluster up: slurmctld on 127.0.0.1:$ctl_port, slurmd on :$node_port, $cpus CPUs, state in $tmp"

fail() {
  echo "FAIL: $*"
  status=1
  exit 1
}
t0=$(date +%s.%N)
bounded "$cello" sweep run "$manifest" --out "$tmp/local" -j 2 || fail "the local backend failed"
t1=$(date +%s.%N)
bounded "$cello" sweep run "$manifest" --out "$tmp/slurm" --backend slurm --poll 0.2 --mem 100M --time 00:05:00 ||
  fail "the slurm backend failed"
t2=$(date +%s.%N)
awk -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN { printf "wall time: local -j 2 %.2f s, slurm %.2f s\n", b - a, c - b }'

points=$(grep -c '"id"' "$tmp/local/sweep.json")
tasks=$(ls "$tmp/slurm/slurm/" | grep -c '_[0-9]*\.out$')
[ "$points" -ge 4 ] || fail "the sweep has $points points, expected at least 4"
[ "$tasks" = "$points" ] || fail "$tasks Slurm tasks ran for $points points"
[ "$(grep -c ',PASS,' "$tmp/slurm/report.csv")" = "$points" ] || fail "not every point passed on Slurm"
for f in report.csv report.json $(cd "$tmp/local" && ls plots/*.svg); do
  cmp "$tmp/local/$f" "$tmp/slurm/$f" || fail "$f differs between the local and the slurm backend"
done
# A rerun finds every report complete and submits nothing.
bounded "$cello" sweep run "$manifest" --out "$tmp/slurm" --backend slurm | grep -q ", 0 to run," || fail "a rerun did not skip the complete points"
echo "PASS: $points points through Slurm, report.csv, report.json and $(ls "$tmp/local/plots" | wc -l) plots equal the local backend's"
status=0
