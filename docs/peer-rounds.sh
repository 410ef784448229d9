#!/usr/bin/env bash
# Times apic against a PyTorch peer of ../shared/peer at equal work and
# prints docs/performance.md's table for one system. Usage:
#
#   docs/peer-rounds.sh spring|lv [TRAIN_ROUNDS [INFER_ROUNDS]]
#
# Rounds are interleaved: each runs apic, then the peer with one thread,
# then with two (OpenMP waiting passively), so that a load on the
# machine falls on every side alike. A training round is 200 steps
# (spring) or 30 (lv) at batch 64; an inference round is apic compare's
# one-pass timings of the trained file on 50 realizations against the
# peer's --what infer. The table gives apic's best and range, PyTorch's
# (each round's better thread count) and the ratio of the bests
# (latency: PyTorch's over apic's, so that above 1 apic is faster).
# lv trains on a fixed pool of 1024 realizations (--trajectories 1024),
# as the peer does; apic's time includes drawing its pool, the peer's
# does not.
# Defaults: 5 training rounds, 3 inference rounds.
#
# PEER=DIR names the peers' folder (default: ../shared/peer beside the
# checkout); it needs Debian's /usr/bin/python3 with torch and
# libopenblas0-pthread (the peers' README), jq, and `apic` on PATH or go
# to build it.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
sys=${1-}
train_rounds=${2:-5}
infer_rounds=${3:-3}
die() { echo "peer-rounds: $*" >&2; exit 2; }
case $sys in
spring) steps=200 arch=(--hidden 128 --layers 1 --latent 1 --dec-hidden 128 --form multiplicative) ;;
lv) steps=30 arch=(--hidden 256 --layers 2 --latent 64 --dec-hidden 128 --dec-layers 1 --trajectories 1024) ;;
*) die "usage: docs/peer-rounds.sh spring|lv [TRAIN_ROUNDS [INFER_ROUNDS]]" ;;
esac
for n in "$train_rounds" "$infer_rounds"; do
  [[ $n =~ ^[1-9][0-9]?$ ]] || die "rounds must be 1 to 99, not '$n'"
done
peer=${PEER:-$root/../shared/peer}
script=$peer/torch_$sys.py
[[ -f $script ]] || die "no PyTorch peer at $script (set PEER=DIR)"
py=/usr/bin/python3
$py -c 'import torch' 2> /dev/null || die "$py cannot import torch: apt-get install python3-torch (see $peer/README.md)"
blas=$(dpkg -L libopenblas0-pthread 2> /dev/null | grep -m1 'libblas.so') ||
  die "libopenblas0-pthread is not installed: without it torch uses the reference BLAS"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! command -v apic > /dev/null; then
  (cd "$root" && go build -o "$tmp/apic" .)
  PATH=$tmp:$PATH
fi

# torch_run THREADS ARGS... runs the peer with OpenBLAS first.
torch_run() {
  local t=$1
  shift
  LD_LIBRARY_PATH=$(dirname "$blas") OMP_WAIT_POLICY=passive "$py" "$script" --threads "$t" "$@"
}

file=$tmp/peer.safetensors
: > "$tmp/rounds.jsonl"
for ((r = 1; r <= train_rounds; r++)); do
  echo "peer-rounds: $sys training round $r of $train_rounds" >&2
  apic train --system "$sys" --backbone lnp "${arch[@]}" --noise 0 --steps1 0 --steps2 "$steps" \
    --batch 64 --val-every 0 --recalibrate 0 --force --out "$file" --json |
    jq -c '{side: "apic", what: "train", steps_per_s: (.steps2 / .wall_seconds)}' >> "$tmp/rounds.jsonl"
  for t in 1 2; do
    torch_run "$t" --steps "$steps" --what train |
      jq -c --argjson r "$r" '{side: "torch", round: $r, what: "train", steps_per_s: .train.steps_per_s}' >> "$tmp/rounds.jsonl"
  done
done
for ((r = 1; r <= infer_rounds; r++)); do
  echo "peer-rounds: $sys inference round $r of $infer_rounds" >&2
  apic compare --system "$sys" --checkpoint "$file" --methods apic --tasks 50 --json |
    jq -c '.methods | to_entries[] | select(.key | endswith(":peer")) | .value |
      {side: "apic", what: "infer", latency_s: .one_pass_seconds_per_realization,
       batched: .one_pass_realizations_per_second_batched}' >> "$tmp/rounds.jsonl"
  for t in 1 2; do
    torch_run "$t" --what infer |
      jq -c --argjson r "$r" '{side: "torch", round: $r, what: "infer", latency_s: .infer.one_pass_latency_s_median,
        batched: ([.infer | to_entries[] | select(.key | endswith("_realizations_per_s")) | .value] | max)}' >> "$tmp/rounds.jsonl"
  done
done
jq -s -r --arg sys "$sys" -f "$root/docs/peertable.jq" "$tmp/rounds.jsonl"
