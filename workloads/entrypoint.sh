#!/bin/sh
# Sahab workload entrypoint: validate this node, then train on it under torchrun.
#
#   sahab-entrypoint [all|validate|train] [worker flags...]      (default: all)
#
# validate  runs `python -m workloads bench`; exit 0 pass, 1 fail, 3 inconclusive (node busy: validate again
#           later); the JSON result is the last stdout line and is also written to $SAHAB_RESULT_FILE. Exit 2: the
#           node could not be validated (bad baseline file, ...). $SAHAB_BENCH_TIME_BUDGET caps it (seconds).
# train     runs torchrun with c10d rendezvous; worker flags (e.g. --steps 1000 --d-model 1024) are passed on.
# all       validate, and only if the node passed, train. Environment: see workloads/README.md; the workers
#           read SAHAB_FABRIC (the fabric a multi-node set's all-reduce is judged against before it trains).
# --help    this text, then the flags of what the mode runs (the bench's, or the training worker's).
set -eu

usage() { sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; }

mode="${1:-all}"
case "$mode" in
  -h|--help) usage; exit 0 ;;
  all|validate|train) [ "$#" -gt 0 ] && shift ;;
  -*) mode=all ;;
  *) echo "error: unknown mode '$mode' (all, validate or train)" >&2; exit 2 ;;
esac
for arg in "$@"; do
  case "$arg" in
    -h|--help)
      usage
      if [ "$mode" = validate ]; then exec python -m workloads bench --help; fi
      exec python -m workloads.train --help ;;
  esac
done

checkpoint_dir="${SAHAB_CHECKPOINT_DIR:-/checkpoints}"
node_rank="${SAHAB_NODE_RANK:-${JOB_COMPLETION_INDEX:-0}}"
case "$checkpoint_dir" in
  s3://*|az://*) result_dir="${TMPDIR:-/tmp}/sahab-validation" ;;  # an object store is no place to mkdir
  *) result_dir="$checkpoint_dir/validation" ;;
esac
result_file="${SAHAB_RESULT_FILE:-$result_dir/node-$node_rank.json}"

validate() {
  mkdir -p "$(dirname "$result_file")"
  set -- bench --format json --output "$result_file"
  if [ -n "${SAHAB_BASELINE:-}" ]; then
    set -- "$@" --baseline "$SAHAB_BASELINE"
  fi
  if [ -n "${SAHAB_BENCH_TIME_BUDGET:-}" ]; then
    set -- "$@" --time-budget "$SAHAB_BENCH_TIME_BUDGET"
  fi
  # In a container this script is PID 1, which the kernel shields from SIGTERM unless it traps it: the bench
  # runs as a child, and a pod terminated while it runs would wait out its grace period for SIGKILL, with no
  # result. Pass the signal on; the bench stops its probe and still writes its (inconclusive) result.
  python -m workloads "$@" &
  bench=$!
  trap 'kill -TERM "$bench" 2>/dev/null || :' TERM
  status=0
  while :; do
    wait "$bench" || status=$?
    kill -0 "$bench" 2>/dev/null || break  # gone and reaped: $status is its own, not the trap's interruption
    status=0
  done
  trap - TERM
  return "$status"
}

train() {
  nnodes="${SAHAB_NNODES:-1}"
  if [ -z "${SAHAB_PEAK_FLOPS:-}" ] && [ -f "$result_file" ]; then
    # MFU against what this node measured (CPU) or its catalog peak (GPU), not a constant
    SAHAB_PEAK_FLOPS="$(python -m workloads.bench.peak "$result_file")"
    export SAHAB_PEAK_FLOPS
  fi
  set -- --checkpoint-dir "$checkpoint_dir" "$@"
  if [ "$nnodes" = "1" ] && [ -z "${SAHAB_RDZV_ENDPOINT:-}" ]; then
    rdzv="--standalone"
  else
    : "${SAHAB_RDZV_ENDPOINT:?set SAHAB_RDZV_ENDPOINT=host:port (DNS name of pod 0) for $nnodes nodes}"
    is_host=false
    [ "$node_rank" = "0" ] && is_host=true  # index 0 hosts the rendezvous store its DNS name points at
    # Timeouts of torch's c10d rendezvous (torch/distributed/elastic/rendezvous/{c10d_rendezvous_backend,
    # dynamic_rendezvous}.py): pods start minutes apart (image pulls, the validation gate), so an agent waits
    # read_timeout for the store's host to come up and join_timeout for the group to form; last_call is how
    # long a group at its minimum size waits for more nodes; a node silent for keep_alive_interval x
    # keep_alive_max_attempt is dropped from the next round.
    conf="is_host=$is_host,read_timeout=${SAHAB_RDZV_READ_TIMEOUT:-900},join_timeout=${SAHAB_RDZV_JOIN_TIMEOUT:-1800}"
    conf="$conf,last_call_timeout=${SAHAB_RDZV_LAST_CALL_TIMEOUT:-30},close_timeout=${SAHAB_RDZV_CLOSE_TIMEOUT:-30}"
    conf="$conf,keep_alive_interval=${SAHAB_RDZV_KEEP_ALIVE:-5},keep_alive_max_attempt=3"
    rdzv="--rdzv-backend=c10d --rdzv-endpoint=$SAHAB_RDZV_ENDPOINT --rdzv-id=${SAHAB_RDZV_ID:-sahab}"
    rdzv="$rdzv --rdzv-conf=$conf"
    # The address other nodes reach this one at (default: its FQDN, which a Job pod's subdomain makes resolvable).
    if [ -n "${SAHAB_LOCAL_ADDR:-}" ]; then rdzv="$rdzv --local-addr=$SAHAB_LOCAL_ADDR"; fi
  fi
  # Every rendezvous round gets a fresh store for its workers' process group, hosted by that round's rank 0,
  # instead of one agent store shared by every round: a restarted group never reads an earlier round's keys.
  export TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1
  # NCCL: a failed or hung collective tears the process down (the agent restarts the group) rather than hang,
  # and the flight recorder keeps the last collectives of each rank, dumped on a timeout for the post-mortem.
  export TORCH_NCCL_ASYNC_ERROR_HANDLING="${TORCH_NCCL_ASYNC_ERROR_HANDLING:-1}"
  export TORCH_FR_BUFFER_SIZE="${TORCH_FR_BUFFER_SIZE:-2000}"
  export TORCH_NCCL_DUMP_ON_TIMEOUT="${TORCH_NCCL_DUMP_ON_TIMEOUT:-1}"
  export TORCH_FR_DUMP_TEMP_FILE="${TORCH_FR_DUMP_TEMP_FILE:-${TMPDIR:-/tmp}/nccl_trace_rank_}"
  # one worker per GPU; one per CPU node, which then owns every core (torchrun's "auto" would start one
  # single-threaded worker per core)
  nproc="${SAHAB_NPROC_PER_NODE:-$(python -c 'import torch; print(torch.cuda.device_count() or 1)')}"
  # torchrun, with the ways an agent ends on rendezvous loss told apart by exit code (workloads/train/agent.py:
  # 75 = pod 0, the store's host, went). c10d assigns ranks itself: --node-rank would be ignored.
  # shellcheck disable=SC2086 # $rdzv is a list of flags
  exec python -m workloads.train.agent $rdzv --nnodes="$nnodes" --nproc-per-node="$nproc" \
    --max-restarts="${SAHAB_MAX_RESTARTS:-3}" -m workloads.train "$@"
}

case "$mode" in
  validate) validate ;;
  train) train "$@" ;;
  all)
    if [ "${SAHAB_SKIP_VALIDATION:-0}" != "1" ]; then
      status=0
      validate || status=$?
      if [ "$status" -ne 0 ]; then
        echo "error: node $node_rank was not validated (exit $status: 1 failed, 3 inconclusive); not training on it" >&2
        exit "$status"
      fi
    fi
    train "$@"
    ;;
esac
