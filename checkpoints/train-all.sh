#!/usr/bin/env bash
# Reproduces the embedded checkpoints: the exact `apic train` commands,
# seeds and budgets that produced them (see docs/training.md). Wall times
# recorded in each file's metadata (`apic inspect FILE`).
#
# The spring files are the outputs of their commands below with the
# current program, their condition tables then refitted on more
# realizations (the end of this script). The lv commands and advdiff's
# cnp and lnp ones train noise-free (--noise 0; train's default became
# noise-aware after they were made); those five files were then
# fine-tuned noise-aware (noise_aware below). Recalibration
# picks the spread mode by the reconstruction's and δ's ECE together;
# every file but lv/anp and spring/anp was recalibrated when it read the
# reconstruction's alone, and keeps the mode picked then. The advdiff
# cnp and lnp files were trained by their commands with the engine of
# their time and then
# recalibrated with the program of that time, which trains nothing: it
# picks the refinement's z_θ prior factor and fits the predictive spread
# (mode and factors) on validation realizations, then re-validates:
#
#   apic train --init FILE --steps1 0 --steps2 0 --lr 1e-3 --lr-final 1e-4 \
#     --seed 1 --out FILE
#
# (the flags only restate the recipe, which the file records). One `train`
# command does all of this today. All nine files were recalibrated once
# more with that command when the spread gained its evolution profile
# (core/profile.go); the weights did not change. When θ's intervals
# gained their scale (SpreadFit.ThetaStdScale), all nine were given it,
# and nothing else, by
#
#   apic train --init FILE --steps1 0 --steps2 0 --recalibrate-only theta --out FILE
#
# (the full recalibration of the commands below fits it too); the
# spring files, trained since, had it from their commands. The lv
# files come from their commands below, run later (`--reg spread`),
# then went through the fine-tuning and refits after them.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out=${OUT:-checkpoints}
apic() { go run . "$@"; }

# spring uses a ReLU f_ψ (cheaper inference); cnp's encoders have one
# hidden layer (--layers 1): about as accurate as two after refinement,
# at 0.6 of the batched one-pass inference cost (docs/results.md). The
# spring files are noise-aware, train's default (each realization's
# noise σ uniform on 0:0.1, the explorer's slider); cnp and lnp train
# three times the stage-2 steps of the noise-free files they replaced
# (anp fifteen times), which
# makes them more accurate at noise 0 too (docs/training.md,
# "Noise-aware training"). anp trains at batch 16 for 400+12000 steps
# (about eight minutes): at 400+2400 its refined errors were about twice
# as large (docs/training.md, "Other budgets").
apic train --system spring --backbone lnp --hidden 64 --latent 8 --dec-hidden 64 --dec-act relu --batch 32 \
  --steps1 1000 --steps2 6000 --lr 1e-3 --lr-final 1e-4 --val-every 3000 --seed 1 \
  --force --out "$out/spring-lnp.safetensors"
apic train --system spring --backbone cnp --hidden 64 --layers 1 --latent 8 --dec-hidden 64 --dec-act relu --batch 32 \
  --steps1 1000 --steps2 6000 --lr 1e-3 --lr-final 1e-4 --val-every 3000 --seed 1 \
  --force --out "$out/spring-cnp.safetensors"
apic train --system spring --backbone anp --hidden 64 --latent 8 --dec-hidden 64 --dec-act relu --batch 16 \
  --steps1 400 --steps2 12000 --lr 1e-3 --lr-final 1e-4 --val-every 6000 --seed 1 \
  --force --out "$out/spring-anp.safetensors"
# lv penalises the spread of the learned forcing across a batch's
# realizations (--reg spread, λδ = 100) instead of its size, and trains
# at batch 8 for as many steps as five minutes allow: lv's δ follows the
# number of steps (docs/training.md, "lv's δ and the training budget"). cnp and
# lnp take 1500+24000 steps (272–273 s).
for b in lnp cnp; do
  apic train --system lv --backbone "$b" --hidden 128 --latent 16 --dec-hidden 128 --batch 8 \
    --steps1 1500 --steps2 24000 --lr 1e-3 --lr-final 1e-4 --val-every 12000 --reg spread --lambda-delta 100 --noise 0 --seed 1 \
    --force --out "$out/lv-$b.safetensors"
done
# lv/anp takes the same 1500+24000 steps, whose stage-2 steps cost about
# four times as much (32 minutes, sharing the two cores with a sweep):
# at 1500+6000 (257 s) its δ was a quarter less accurate and its δ LL
# below the paper's (docs/training.md, "lv's δ and the training budget").
apic train --system lv --backbone anp --hidden 128 --latent 16 --dec-hidden 128 --batch 8 \
  --steps1 1500 --steps2 24000 --lr 1e-3 --lr-final 1e-4 --val-every 12000 --reg spread --lambda-delta 100 --noise 0 --seed 1 \
  --force --out "$out/lv-anp.safetensors"
for b in lnp cnp; do
  apic train --system advdiff --backbone "$b" --hidden 64 --latent 16 --dec-hidden 64 --batch 16 \
    --steps1 1500 --steps2 2000 --lr 1e-3 --lr-final 1e-4 --val-every 1000 --refine 8 --noise 0 --seed 1 \
    --force --out "$out/advdiff-$b.safetensors"
done
# advdiff/anp trains the lnp/cnp command noise-aware (train's default σ
# range, half the realizations noise-free): 1256 s, sharing the two
# cores with another training (docs/training.md, "Noise-aware
# training").
apic train --system advdiff --backbone anp --hidden 64 --latent 16 --dec-hidden 64 --batch 16 \
  --steps1 1500 --steps2 2000 --lr 1e-3 --lr-final 1e-4 --val-every 1000 --refine 8 --noise-low-share 0.5 --seed 1 \
  --force --out "$out/advdiff-anp.safetensors"

# Issue 21: the lv and advdiff files were then made noise-aware by
# fine-tuning them on contexts whose noise σ is 0 for half the
# realizations and uniform on 0 to 0.1 for the rest (--noise-low-share
# 0.5). A uniform σ alone, fine-tuning or from scratch, lost more than
# 10 % of their noise-free accuracy (docs/training.md). lv/anp's is
# gentler: 6000 steps at three tenths of the rate, three quarters of its
# realizations noise-free (the others' rate raised its δ MAE by 30 %).
noise_aware() { # FILE STEPS [NOISE-FREE SHARE]
  apic train --init "$out/$1" --steps1 0 --steps2 "$2" --lr 1e-4 --lr-final 1e-5 --val-every "$2" \
    --noise-range 0:0.1 --noise-low-share "${3:-0.5}" --out "$out/$1"
}
noise_aware lv-lnp.safetensors 12000
noise_aware lv-cnp.safetensors 12000
apic train --init "$out/lv-anp.safetensors" --steps1 0 --steps2 6000 --lr 3e-5 --lr-final 3e-6 --val-every 6000 \
  --noise-range 0:0.1 --noise-low-share 0.75 --out "$out/lv-anp.safetensors"
noise_aware advdiff-lnp.safetensors 2000
noise_aware advdiff-cnp.safetensors 2000

# Issue 21: the predictive spread was calibrated at the headline
# condition only. All nine files were then given the table of scales
# over context sizes × noise levels (core/condscale.go: contexts 1, 2
# and 5, 10, 30, 60 — advdiff 32, 128, 256, 1024 — at σ = 0, 0.01,
# 0.05, 0.1), and nothing else, with the noise estimate that counts
# the fit's parameters (core/refine.go), by the command below: it
# trains nothing and keeps every other setting. The number is the
# validation realizations per condition (spring 1024, lv 256, advdiff
# 192: about four minutes for all nine on the two-core machine). A full
# `apic train` fits the table too (with a quarter of --recalibrate per
# condition, at least 8), so the commands above alone give it to a new file.
# The tables were refitted by the same commands after refinement gained
# exact Jacobians, the small-context likelihood floor and θ's prior
# weight (docs/uncertainty.md), and again when θ's scales came to be
# fitted as predictions read the table (core/condtheta.go), and once
# more when refined θ deviations came from the Laplace covariance
# instead of the latent samples' spread.
# recal_all PART N_SPRING N_LV N_ADVDIFF refits PART of all nine files
# (apic train --recalibrate-only PART) on N validation realizations per
# condition, training nothing and keeping every other setting.
recal_all() {
  local part=$1 n
  shift
  for s in spring lv advdiff; do
    n=$1
    shift
    for b in cnp lnp anp; do
      [[ $s-$b == lv-anp ]] && continue # refitted at the end
      apic train --init "$out/$s-$b.safetensors" --steps1 0 --steps2 0 --recalibrate "$n" --recalibrate-only "$part" --out "$out/$s-$b.safetensors"
    done
  done
}
recal_all conditions 1024 256 192

# θ's intervals were Gaussian of the scale that fits their 95% level,
# and θ's errors are heavier-tailed: the inner intervals were far too
# wide (docs/uncertainty.md, "θ's interval shape"). All nine files were
# then given the shapes of θ's intervals per condition, and nothing
# else, by the command below (it trains nothing and keeps every scale of
# the table), on more realizations per condition than the table's
# scales: a shape has 18 levels to fit. The nine runs took about eight
# minutes together on the two-core machine (their wall times summed).
recal_all theta-shape 1024 768 576

# The one-pass predictions, which the explorer shows while its sliders
# move, kept a single scale for all parameters fitted at the headline
# condition (and a cnp's had no θ interval at all). All nine files were
# then given the one-pass predictions' own table of scales with θ's
# factors per parameter and condition and a cnp's floors
# (core/thetabase.go), and nothing else, by the command below: it trains
# nothing and keeps the weights and the default predictions' settings.
# They were refitted by the same command once the one-pass noise
# estimate fell back on the learned noise at one or two context points
# (core/spread.go, shrinkContextNoise), after the band shapes below; the
# command fits the one-pass table's band shapes too.
recal_all one-pass 1024 768 576

# The reconstruction's and δ's bands were Gaussian of the scale that
# minimizes their mean ECE, and pooled over realizations their errors
# are heavier-tailed (lv/cnp's 95% δ band held about three quarters of
# the truths at noise 0; docs/uncertainty.md, "The bands' shape"). All
# nine files were then given the bands' shapes in both tables, and
# nothing else, by the command below (it trains nothing and keeps every
# scale).
recal_all band-shape 1024 768 576

# The deviation of lv's θ hints then got a floor that falls with the
# number of observations as the spline integrals' error does
# (sims/lv_regression.go, lvHintFloor: a fixed 0.01 held every truth
# within its 50% interval on clean contexts from 30 points on), and a
# cnp's one pass took the hint's deviation as η's and γ's
# (core/predict.go, hintThetaStd). The three lv files' tables were then
# refitted in the order their parts were first fitted, training nothing
# (about nine minutes on the two-core machine).
for b in cnp lnp; do # lv-anp: refitted at the end
  f="$out/lv-$b.safetensors"
  apic train --init "$f" --steps1 0 --steps2 0 --recalibrate 256 --recalibrate-only conditions --out "$f"
  for part in theta-shape one-pass band-shape; do
    apic train --init "$f" --steps1 0 --steps2 0 --recalibrate 768 --recalibrate-only "$part" --out "$f"
  done
done

# Refinement's prior on θ's logits came to have two forms
# (core/refine.go, logitPriorWidth): the fixed width every file had, and
# one widened where θ's map flattens near a prior bound, which stopped
# pulling those estimates toward the interior. Each file was given the
# form its validation realizations score better with, and nothing else
# (the logit form unless the θ form scores 2% lower); where that was
# the θ form, the refined predictions' tables were refitted in the
# order their parts were first fitted, training nothing.
for s in spring advdiff lv; do
  case $s in
    spring) n_table=1024 n_shape=1024 ;;
    advdiff) n_table=192 n_shape=576 ;;
    lv) n_table=256 n_shape=768 ;;
  esac
  for b in cnp lnp anp; do
    [[ $s-$b == lv-anp ]] && continue # refitted at the end
    f="$out/$s-$b.safetensors"
    apic train --init "$f" --steps1 0 --steps2 0 --recalibrate 256 --recalibrate-only theta-prior --out "$f"
    case "$(apic inspect "$f")" in
      *"θ prior theta"*)
        apic train --init "$f" --steps1 0 --steps2 0 --recalibrate "$n_table" --recalibrate-only conditions --out "$f"
        for part in theta-shape band-shape; do
          apic train --init "$f" --steps1 0 --steps2 0 --recalibrate "$n_shape" --recalibrate-only "$part" --out "$f"
        done
        ;;
    esac
  done
done

# The re-estimated noise's floor fell from 1e-8 to 1e-12 of the learned
# variance (core/refine.go, noiseFloor): at 1e-8 it still bound on
# advdiff without noise, where fits come near exact. advdiff's refined
# predictions' tables were refitted under it, as above, training
# nothing (the θ prior's form, picked again, stayed the θ form).
for b in cnp lnp anp; do
  f="$out/advdiff-$b.safetensors"
  apic train --init "$f" --steps1 0 --steps2 0 --recalibrate 256 --recalibrate-only theta-prior --out "$f"
  apic train --init "$f" --steps1 0 --steps2 0 --recalibrate 192 --recalibrate-only conditions --out "$f"
  for part in theta-shape band-shape; do
    apic train --init "$f" --steps1 0 --steps2 0 --recalibrate 576 --recalibrate-only "$part" --out "$f"
  done
done

# δ's deviation then got a time profile (core/deltaprofile.go): a
# realization's δ error grows over its time span as F(x; θ̂) drifts from
# F(x; θ), and a band flat in time was too narrow late. Each file's
# default and one-pass spread were given the exponent their validation
# realizations pick (--recalibrate-only delta-profile, which leaves a fit
# whose profile stays flat as it was), and the tables of the fits whose
# profile changed were refitted in the order their parts were first
# fitted, training nothing: spring's default fits stayed flat, and so
# did advdiff/anp's.
for s in spring lv advdiff; do
  for b in cnp lnp anp; do
    [[ $s-$b == lv-anp ]] && continue # refitted at the end
    f="$out/$s-$b.safetensors"
    apic train --init "$f" --steps1 0 --steps2 0 --recalibrate 256 --recalibrate-only delta-profile --out "$f"
    case $s-$b in
      spring-*) parts="one-pass:1024 band-shape:1024" ;;
      lv-*) parts="conditions:256 theta-shape:768 one-pass:768 band-shape:768" ;;
      advdiff-anp) parts="one-pass:576 band-shape:576" ;;
      advdiff-*) parts="conditions:192 theta-shape:576 one-pass:576 band-shape:576" ;;
    esac
    for p in $parts; do
      apic train --init "$f" --steps1 0 --steps2 0 --recalibrate "${p##*:}" --recalibrate-only "${p%%:*}" --out "$f"
    done
  done
done

# lv/anp was retrained (its 1500+24000 command and gentler fine-tune
# above) after every refit above had been applied to the other files. Its
# training command fitted every part, as a full `apic train` does; it
# was then given the last of the refits above, in their order, training
# nothing.
f="$out/lv-anp.safetensors"
apic train --init "$f" --steps1 0 --steps2 0 --recalibrate 256 --recalibrate-only theta-prior --out "$f"
case "$(apic inspect "$f")" in
  *"θ prior theta"*)
    apic train --init "$f" --steps1 0 --steps2 0 --recalibrate 256 --recalibrate-only conditions --out "$f"
    for part in theta-shape band-shape; do
      apic train --init "$f" --steps1 0 --steps2 0 --recalibrate 768 --recalibrate-only "$part" --out "$f"
    done
    ;;
esac
apic train --init "$f" --steps1 0 --steps2 0 --recalibrate 256 --recalibrate-only delta-profile --out "$f"
for p in conditions:256 theta-shape:768 one-pass:768 band-shape:768; do
  apic train --init "$f" --steps1 0 --steps2 0 --recalibrate "${p##*:}" --recalibrate-only "${p%%:*}" --out "$f"
done

# A one-pass prediction's θ samples spread far less than θ's error, so
# its δ band, the samples' spread, missed what θ's error does to δ̂ =
# ŷ − F(x; θ̂): lv/anp's one-pass δ LL was −1.1. Each file's one-pass δ
# band was then offered θ's share propagated through F (core/deltatheta.go),
# weighted per condition where it raises the validation δ LL without
# raising δ's ECE, and the one-pass table refitted under it (the same
# realizations as the one-pass part's, so the same counts), training
# nothing; a file where no condition gains is left as it was.
for s in spring lv advdiff; do
  case $s in spring) n=1024 ;; lv) n=768 ;; advdiff) n=576 ;; esac
  for b in cnp lnp anp; do
    f="$out/$s-$b.safetensors"
    apic train --init "$f" --steps1 0 --steps2 0 --recalibrate "$n" --recalibrate-only delta-theta --out "$f"
  done
done

# A refined fit to a few clean points can match them all while it is
# wrong between them, and then its residuals, its noise estimate and its
# band collapse together: spring/cnp's mean recon LL at five clean
# points was −62, from a few realizations whose bands were a hundred
# times narrower than their errors. The refined bands were then widened
# by how far the fit moved from where it started, weighted per
# condition where that raises the validation recon and δ LL without
# raising their ECE by more than 0.01 (core/disagree.go), and the bands'
# shapes refitted to the widened bands, training nothing. spring's
# files were given the weights; lv's and advdiff's, whose mean recon LL
# at five points stayed above −1 without them, were not.
for b in cnp lnp anp; do
  f="$out/spring-$b.safetensors"
  for part in disagreement band-shape; do
    apic train --init "$f" --steps1 0 --steps2 0 --recalibrate 1024 --recalibrate-only "$part" --out "$f"
  done
done

# The one pass's δ band scales per condition then became
# likelihood-aware (core/condscale.go, likelihoodAwareScale): of the
# scales whose mean ECE is within 0.01 of the least, each cell takes the
# one nearest the scale that maximises the mean LL. Every file's
# one-pass table was refitted so, training nothing and keeping every
# other setting.
for s in spring lv advdiff; do
  case $s in spring) n=1024 ;; lv) n=768 ;; advdiff) n=576 ;; esac
  for b in cnp lnp anp; do
    f="$out/$s-$b.safetensors"
    apic train --init "$f" --steps1 0 --steps2 0 --recalibrate "$n" --recalibrate-only one-pass --out "$f"
  done
done

# θ's interval of an estimate at a prior bound reaches that bound
# (core/predict.go, reachBound), so it holds the truth there at any
# scale; θ's scales per condition came to count those as covered
# (core/condtheta.go, reachesTruth) rather than widen every other
# interval for them, which had left advdiff's θ intervals covering 0.993
# in two cells. Every file's refined predictions' table was refitted so,
# in the order its parts were first fitted, training nothing: spring's
# disagreement weights and the band shapes fitted to them again after
# the table, and last the one-pass part, since band-shape refits the
# one-pass table's shapes too and the one-pass part gives that table
# back as it was. Only the θ scales and shapes moved.
for s in spring lv advdiff; do
  case $s in
    spring) n_table=1024 parts="theta-shape:1024 band-shape:1024 disagreement:1024 band-shape:1024 one-pass:1024" ;;
    lv) n_table=256 parts="theta-shape:768 band-shape:768 one-pass:768" ;;
    advdiff) n_table=192 parts="theta-shape:576 band-shape:576 one-pass:576" ;;
  esac
  for b in cnp lnp anp; do
    f="$out/$s-$b.safetensors"
    apic train --init "$f" --steps1 0 --steps2 0 --recalibrate "$n_table" --recalibrate-only conditions --out "$f"
    for p in $parts; do
      apic train --init "$f" --steps1 0 --steps2 0 --recalibrate "${p##*:}" --recalibrate-only "${p%%:*}" --out "$f"
    done
  done
done
