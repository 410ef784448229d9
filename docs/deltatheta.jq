# Summarizes a stream of `apic inspect --json FILE` objects (one per
# checkpoint) as one Markdown row per checkpoint: whether its one-pass
# δ band carries θ's share (core/deltatheta.go), its factors r_q, and
# the weights w fitted at each context size (least–most over the noise
# levels' cells).
def f: if . == 0 then "0" elif . < 0.1 then (. * 1000 | round / 1000 | tostring) else (. * 100 | round / 100 | tostring) end;
"| file | factors r_q | weight w by context size (least–most over its noise levels) |",
"|---|---|---|",
(.[] | .config.infer.one_pass.delta_theta as $d |
  if $d == null then "| \(.system)/\(.backbone) | none | none |"
  else
    "| \(.system)/\(.backbone) | \($d.factor | map(f) | join(", ")) | \(
      [$d.cells | group_by(.context)[] | (map(.weight) | min) as $lo | (map(.weight) | max) as $hi |
        "\(.[0].context): \(if $lo == $hi then ($lo | f) else "\($lo | f)–\($hi | f)" end)"] | join(" · ")) |"
  end)
