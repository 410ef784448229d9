# docs/peer-rounds.sh's table: its rounds (one JSON object each, slurped)
# as Markdown. PyTorch's figure per round is the better of its thread
# counts; the ratio sets the bests side by side.
def sig3: if . >= 100 then round elif . >= 10 then (. * 10 | round) / 10 else (. * 100 | round) / 100 end | tostring;
def span: "\(min | sig3)–\(max | sig3)";
def torch_rounds($what; $key; better):
  [.[] | select(.side == "torch" and .what == $what)] | group_by(.round)
  | map([.[][$key]] | better);
def apic_rounds($what; $key): [.[] | select(.side == "apic" and .what == $what) | .[$key]];
. as $all
| ($all | apic_rounds("train"; "steps_per_s")) as $at
| ($all | torch_rounds("train"; "steps_per_s"; max)) as $tt
| ($all | apic_rounds("infer"; "latency_s") | map(. * 1000)) as $al
| ($all | torch_rounds("infer"; "latency_s"; min) | map(. * 1000)) as $tl
| ($all | apic_rounds("infer"; "batched")) as $ab
| ($all | torch_rounds("infer"; "batched"; max)) as $tb
| (if $sys == "spring" then ["spring LNP, paper sizes", "batched realizations/s (apic 50; PyTorch 50 and 200)"]
   else ["lv LNP, closest sizes", "batched realizations/s, 50"] end) as $labels
| "| \($labels[0]) | apic | PyTorch + OpenBLAS (better of 1, 2 threads) | apic ÷ PyTorch (best against best) |",
  "|---|---|---|---|",
  "| training steps/s (best; range) | \($at | max | sig3); \($at | span) | \($tt | max | sig3); \($tt | span) | \(($at | max) / ($tt | max) | sig3) |",
  "| one-pass latency, 32 samples | \($al | span) ms | \($tl | span) ms | \(($tl | min) / ($al | min) | sig3) (speed) |",
  "| \($labels[1]) | \($ab | span) | \($tb | span) | \(($ab | max) / ($tb | max) | sig3) |"
