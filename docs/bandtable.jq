# Run with jq -s on a stream of `apic diagnose --json` objects, each
# condition once with the checkpoint's band shapes and once with
# --gaussian-bands. Per file and condition, for the reconstruction's and
# δ's bands: the share of truths inside the 50% and 95% bands and the
# largest |empirical − nominal| coverage over the 19 levels, shaped and
# Gaussian.
def pct: . * 100 | round / 100;
def worst: [.signed[] | select(type == "number") | fabs] | max;
def cell(c): "\(c.empirical[9] | pct) / \(c.empirical[18] | pct) / \(c | worst | pct)";
"| file | σ | band | shape: 50% / 95% / largest miss | Gaussian: 50% / 95% / largest miss |",
"|---|---|---|---|---|",
(group_by([.system, .backbone, .context, .noise])[] |
 (map(select(.bands_shaped))[0]) as $s | (map(select(.bands_shaped | not))[0]) as $g |
 range(0; 2) as $i |
 "| \($g.system)/\($g.backbone) | \($g.noise) | \(["recon", "δ"][$i]) | \(if $s then cell($s.reliability[$i]) else "–" end) | \(cell($g.reliability[$i])) |")
