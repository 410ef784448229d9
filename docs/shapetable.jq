# Run with jq -s on a stream of `apic diagnose --json` objects, each
# condition once with the checkpoint's θ interval shape and once with
# --gaussian-theta. Per file, condition and parameter: the share of θ
# in its central 50% interval and the largest |empirical − nominal|
# coverage over the 19 levels, shaped and Gaussian.
def pct: . * 100 | round / 100;
def worst: [.signed[] | fabs] | max;
"| file | context, σ | θ | 50% interval covers: shape | Gaussian | largest miss: shape | Gaussian |",
"|---|---|---|---|---|---|---|",
(group_by([.system, .backbone, .context, .noise])[] |
 (map(select(.theta_shaped))[0]) as $s | (map(select(.theta_shaped | not))[0]) as $g |
 ($s.reliability | map(select(.name | startswith("theta:")))) as $sc |
 ($g.reliability | map(select(.name | startswith("theta:")))) as $gc |
 range(0; $sc | length) as $i |
 "| \($s.system)/\($s.backbone) | \($s.context), \($s.noise) | \($sc[$i].name | ltrimstr("theta:")) | \($sc[$i].empirical[9] | pct) | \($gc[$i].empirical[9] | pct) | \($sc[$i] | worst | pct) | \($gc[$i] | worst | pct) |")
