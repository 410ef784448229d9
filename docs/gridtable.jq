# Formats `apic eval --grid --json` objects (one per checkpoint, in a
# stream) as one Markdown table per checkpoint. A ✗ marks a value that
# misses issue 21's target for its cell: in the grid recon ECE ≤ 0.10,
# δ ECE ≤ 0.15, θ 95% coverage in [0.90, 0.99]; at contexts 1 and 2,
# θ coverage ≥ 0.90 and recon LL ≥ −5. "pooled" is the ECE over all
# realizations' targets together (no target; core/pooledece.go).
def f: if . == null then "–" else (. * 1000 | round / 1000 | tostring) end;
def m(k): .report.metrics[k].mean;
def mark(bad): if bad then " ✗" else "" end;
"### \(.system)/\(.backbone)\n",
"| context | σ | recon ECE | pooled | δ ECE | pooled | θ cover95 | recon LL | obs cover95 | failed |",
"|---|---|---|---|---|---|---|---|---|---|",
(.cells[] as $c | ($c.context <= 2) as $small |
  ($c | m("recon_ece")) as $re | ($c | m("delta_ece")) as $de |
  ($c | m("theta_cover95")) as $cv | ($c | m("recon_ll")) as $ll |
  "| \($c.context) | \($c.noise) | \($re | f)\(mark($small | not and $re > 0.10)) | \($c.report.pooled_ece.recon | f) | \($de | f)\(mark($small | not and $de > 0.15)) | \($c.report.pooled_ece.delta | f) | \($cv | f)\(mark($cv < 0.90 or ($small | not and $cv > 0.99))) | \($ll | f)\(mark($small and $ll < -5)) | \($c | m("obs_cover95") | f) | \($c.report.failures.count // 0) |"),
""
