# Summarizes a stream of `apic eval --grid --refine 0 --json` objects
# (one per checkpoint) as one Markdown row per checkpoint: over the
# 4 × 4 grid (contexts above 2), how many cells meet each of issue 21's
# targets (recon ECE ≤ 0.10, δ ECE ≤ 0.15, per realization and pooled
# over the cell's targets; θ 95% coverage in [0.90, 0.99]) and the worst
# value of each, and the least mean δ LL; at contexts 1 and 2, the
# least θ coverage and recon LL.
def f: if . == null then "–" else (. * 1000 | round / 1000 | tostring) end;
def m(k): .report.metrics[k].mean;
"| file | recon ECE ≤ 0.10 (worst) | pooled (worst) | δ ECE ≤ 0.15 (worst) | pooled (worst) | θ cover95 in [0.90, 0.99] (range) | least δ LL | contexts 1, 2: least θ cover95, recon LL |",
"|---|---|---|---|---|---|---|---|",
(.[] |
  [.cells[] | select(.context > 2)] as $g | [.cells[] | select(.context <= 2)] as $s |
  ($g | map(m("recon_ece"))) as $re | ($g | map(m("delta_ece"))) as $de | ($g | map(m("theta_cover95"))) as $cv |
  ($g | map(.report.pooled_ece.recon)) as $pr | ($g | map(.report.pooled_ece.delta)) as $pd |
  "| \(.system)/\(.backbone) | \($re | map(select(. <= 0.10)) | length)/\($g | length) (\($re | max | f)) | \($pr | map(select(. <= 0.10)) | length)/\($g | length) (\($pr | max | f)) | \($de | map(select(. <= 0.15)) | length)/\($g | length) (\($de | max | f)) | \($pd | map(select(. <= 0.15)) | length)/\($g | length) (\($pd | max | f)) | \($cv | map(select(. >= 0.90 and . <= 0.99)) | length)/\($g | length) (\($cv | min | f)–\($cv | max | f)) | \($g | map(m("delta_ll")) | min | f) | \($s | map(m("theta_cover95")) | min | f), \($s | map(m("recon_ll")) | min | f) |")
