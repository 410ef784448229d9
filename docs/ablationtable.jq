# Formats a sweep's summary.json (apic sweep --collect DIR --json) as a
# Markdown table: per cell the mean ± 95% half-interval over seeds of
# the refined (default) MAEs and, for training sweeps, the one-pass MAEs.
def f: if . == null then "–" else (. * 10000 | round / 10000 | tostring) end;
def pm(k): .metrics[k] as $m | if $m.mean == null then "–"
  elif $m.ci95_hi == null then ($m.mean | f)
  else "\($m.mean | f) ± \(($m.ci95_hi - $m.mean) | f)" end;
(.axes | join(" · ")) as $ax |
([.cells[] | .metrics.onepass_recon_mae.mean != null] | any) as $one |
(if $one then
  "| \($ax) | recon MAE | δ MAE | θ MAE | one-pass recon | one-pass δ | one-pass θ |",
  "|---|---|---|---|---|---|---|"
 else
  "| \($ax) | recon MAE | δ MAE | θ MAE | recon ECE |",
  "|---|---|---|---|---|"
 end),
(.cells[] | [.values[$ax | split(" · ")[]]] as $v |
 if $one then
  "| \($v | join(" · ")) | \(pm("recon_mae")) | \(pm("delta_mae")) | \(pm("theta_mae")) | \(pm("onepass_recon_mae")) | \(pm("onepass_delta_mae")) | \(pm("onepass_theta_mae")) |"
 else
  "| \($v | join(" · ")) | \(pm("recon_mae")) | \(pm("delta_mae")) | \(pm("theta_mae")) | \(pm("recon_ece")) |"
 end)
