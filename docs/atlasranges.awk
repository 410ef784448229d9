# Summarises TestAtlasOnePassUncertainty's lines ("SYSTEM one pass:
# pooled recon ECE E at ...; θ cover95 C at ...") per system: the range
# of each figure over the system's atlas files.
$2 == "one" {
  s = $1; e = $7 + 0; c = $15 + 0
  if (!(s in n)) { emin[s] = emax[s] = e; cmin[s] = cmax[s] = c; order[++k] = s }
  n[s]++
  if (e < emin[s]) emin[s] = e; if (e > emax[s]) emax[s] = e
  if (c < cmin[s]) cmin[s] = c; if (c > cmax[s]) cmax[s] = c
}
END {
  for (i = 1; i <= k; i++) {
    s = order[i]
    printf "%s: %d files, one-pass pooled recon ECE %.3f–%.3f at noise 0.05, θ cover95 %.3f–%.3f at two clean points\n", s, n[s], emin[s], emax[s], cmin[s], cmax[s]
  }
}
