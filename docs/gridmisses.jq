# Run with jq -s. Counts, per checkpoint of an `apic eval --grid --json`
# stream, the grid
# cells (context > 2) that meet each of issue 21's targets, per
# realization (BENCHMARKS.md) and pooled, and the small-context cells
# (contexts 1 and 2) that meet theirs.
def n(f): [.[] | select(f)] | length;
"| file | recon ECE ≤ 0.10 | pooled ≤ 0.10 | δ ECE ≤ 0.15 | pooled ≤ 0.15 | θ cover95 in [0.90, 0.99] | contexts 1, 2: θ cover ≥ 0.90, LL ≥ −5 |",
"|---|---|---|---|---|---|---|",
(.[] | . as $r | [.cells[] | select(.context > 2) | .report] as $g | [.cells[] | select(.context <= 2) | .report] as $s |
 "| \($r.system)/\($r.backbone) | \($g | n(.metrics.recon_ece.mean <= 0.10))/\($g | length) | \($g | n(.pooled_ece.recon <= 0.10))/\($g | length) | \($g | n(.metrics.delta_ece.mean <= 0.15))/\($g | length) | \($g | n(.pooled_ece.delta <= 0.15))/\($g | length) | \($g | n(.metrics.theta_cover95.mean >= 0.90 and .metrics.theta_cover95.mean <= 0.99))/\($g | length) | \($s | n(.metrics.theta_cover95.mean >= 0.90 and .metrics.recon_ll.mean >= -5))/\($s | length) |")
