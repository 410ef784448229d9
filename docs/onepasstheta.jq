# Run with jq -s on a stream of `apic diagnose --refine 0 --json`
# objects. Per file and condition, for each θ: the share of θ in its
# central 50% and 95% one-pass intervals and the largest
# |empirical − nominal| coverage over the 19 levels.
def pct: . * 100 | round / 100;
def worst: [.signed[] | select(type == "number") | fabs] | max;
"| file | context, σ | θ: 50% covers / 95% covers / largest miss |",
"|---|---|---|",
(.[] | (.reliability | map(select(.name | startswith("theta:")))) as $c |
 "| \(.system)/\(.backbone) | \(.context), \(.noise) | " +
 ([$c[] | "\(.name | ltrimstr("theta:")) \(.empirical[9] | pct) / \(.empirical[18] | pct) / \(worst | pct)"] | join("; ")) + " |")
