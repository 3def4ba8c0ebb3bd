#!/usr/bin/env bash
# One command on the GPU machine for each part of a session's check, so a lent device's
# minutes go to running, not to typing (docs/gpu.md). Run it from the project root, with
# the bundle of packages the machine lacks at .gpu/site.tgz; logs go under $OUT (the
# folder the device tool sends back) or ./gpu-out.
#
#   bash bench/gpu_check.sh tests     # pytest -m cuda test/python            (~3-4 min)
#   bash bench/gpu_check.sh compare   # every workload side by side: README's table (~5 min)
#   bash bench/gpu_check.sh accept    # the backend's acceptance check on the 1B model (~4 min)
#   bash bench/gpu_check.sh memory    # first call and peak memory, each alone (~5 min)
#   bash bench/gpu_check.sh first-call  # the first call stage by stage and launch by
#                                       # launch (cold caches), then lumir, inductor and
#                                       # the Dynamo + aot_autograd floor alone (~3 min)
#   bash bench/gpu_check.sh dynamic-decode  # 1B greedy decode with a DynamicCache, each
#                                           # token timed: eager, lumir, inductor, with
#                                           # cuDNN attention on, then off (~4 min)
#
# Each part stops at its own time limit (PART_SECONDS, default 280 s), so two parts fit
# in one 10-minute call; the tail of every log is printed.
set -uo pipefail
part=${1:?usage: bench/gpu_check.sh tests|compare|accept|memory|first-call|dynamic-decode}
out=${OUT:-gpu-out}
limit=${PART_SECONDS:-280}
mkdir -p "$out" /tmp/site
tar xzf .gpu/site.tgz -C /tmp/site
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1
{
  nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
  python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
  git log --oneline -1 2>/dev/null || true
} > "$out/machine.txt" 2>&1
cat "$out/machine.txt"

case $part in
  tests)
    command=(python3 -m pytest -m cuda test/python -p no:cacheprovider) ;;  # -q from addopts: the summary line stays
  compare)
    command=(python3 -m bench.compare --workloads chain,llama --seqs 1,6,128,1024,decode
             --modes eager-graph,lumir,reduce-overhead --budget-s "$((limit - 20))"
             --out "$out/compare") ;;
  accept)
    command=(python3 bench/backend_llama_check.py --peer reduce-overhead) ;;
  memory)
    command=(python3 -m bench.isolated --seqs 1,1024 --modes eager,lumir,inductor
             --out "$out/isolated") ;;
  first-call)
    command=(bash -c 'TRITON_CACHE_DIR=$(mktemp -d) LUMIR_CACHE_DIR=$(mktemp -d) \
               python3 -m bench.first_call --timers --seq 1 --launches 12 &&
             python3 -m bench.isolated --seqs 1 --modes frontend-aot,lumir,inductor \
               --calls 5 --out "$0/first-call"' "$out") ;;
  dynamic-decode)
    command=(bash -c 'python3 -m bench.dynamic_decode --tokens 16 &&
             python3 -m bench.dynamic_decode --tokens 16 --cudnn-attention off') ;;
  *)
    echo "gpu_check: unknown part '$part' (tests, compare, accept, memory, first-call, dynamic-decode)" >&2
    exit 2 ;;
esac
start=$(date +%s)
timeout "$limit" "${command[@]}" > "$out/$part.log" 2>&1
status=$?
echo "gpu_check $part: exit $status after $(( $(date +%s) - start )) s (limit $limit s)"
grep -v '^W[0-9]' "$out/$part.log" | tail -40
exit $status
