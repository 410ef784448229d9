package cli

import (
	"cmp"
	"maps"
	"strconv"
	"strings"

	"apic/core"
	"apic/sims"
)

// evalDefaults are the defaults of eval's flags that a sweep may set,
// as sameAs spells them: a cell that sets one runs as one that does not.
var evalDefaults = map[string]string{"noise": "0", "samples": "32", "refine": "-1", "z-theta-prior": "-1"}

// trainFlagDefaults are the defaults of train's flags that a sweep may
// set and that are the same for every system, as train's help states
// them and sameAs spells them. The widths, steps and ranges that are
// the system's come from core.DefaultConfig (trainDefaults).
var trainFlagDefaults = map[string]string{
	"backbone": "lnp", "form": "native", "reg": "l2", "dec-act": "silu", "dtype": "f32",
	"lr": "0.0005", "lr-final": "0", "lambda-theta": "1", "lambda-delta": "1", "clip": "10",
	"trajectories": "0", "basis": "0", "noise-range": defaultNoiseRange, "grid-summary": "false", "no-theta-hint": "false",
	"recalibrate": strconv.Itoa(core.DefaultRecalibrationTasks),
}

// commandDefaults are the settings, by flag and as sameAs spells them,
// that the command of a cmd.txt line's words does without them, so
// that a cell which gives one runs as one that does not; values are
// the line's settings, by flag. The backbone lnp is eval's default for
// the model of --system, not with a --checkpoint, whose own backbone
// it must then match.
func commandDefaults(words []shellWord, values map[string]string) map[string]string {
	switch words[1].text {
	case "train":
		return trainDefaults(wordAfter(words, "--system"), values)
	case "eval":
		defaults := maps.Clone(evalDefaults)
		if !hasCheckpointWord(words) {
			defaults["backbone"] = "lnp"
		}
		return defaults
	}
	return nil
}

// trainDefaults are train's defaults for a fresh model of system with
// the line's settings values: trainFlagDefaults, and the widths, steps
// and ranges of the system and backbone, which train starts from
// (core.DefaultConfig) where no flag sets them. --latent-delta's default
// is --latent's value where the line gives one. For an unknown system
// or backbone only trainFlagDefaults are known.
func trainDefaults(system string, values map[string]string) map[string]string {
	defaults := maps.Clone(trainFlagDefaults)
	sys, err := sims.Lookup(system)
	if err != nil {
		return defaults
	}
	b, err := core.ParseBackbone(cmp.Or(values["backbone"], defaults["backbone"]))
	if err != nil {
		return defaults
	}
	cfg := core.DefaultConfig(sys, b)
	a, t := cfg.Arch, cfg.Train
	for flag, n := range map[string]int{"hidden": a.Hidden, "layers": a.Layers, "latent": a.LatentTheta,
		"latent-delta": a.LatentDelta, "dec-hidden": a.DecHidden, "dec-layers": a.DecLayers, "heads": a.Heads,
		"steps1": t.Steps1, "steps2": t.Steps2, "batch": t.Batch, "val-every": t.ValEvery, "val-tasks": t.ValTasks} {
		defaults[flag] = strconv.Itoa(n)
	}
	lo, hi := sys.TrainContext()
	defaults["context-range"] = strconv.Itoa(lo) + ":" + strconv.Itoa(hi)
	if latent, ok := values["latent"]; ok {
		defaults["latent-delta"] = latent
	}
	return defaults
}

// wordAfter is the word that follows flag (given apart: --system S) in
// a line's words, "" where it has none.
func wordAfter(words []shellWord, flag string) string {
	for i := 0; i+1 < len(words); i++ {
		if words[i].text == flag {
			return words[i+1].text
		}
	}
	return ""
}

// hasCheckpointWord reports whether a line's words give --checkpoint.
func hasCheckpointWord(words []shellWord) bool {
	for _, w := range words {
		if w.text == "--checkpoint" || strings.HasPrefix(w.text, "--checkpoint=") {
			return true
		}
	}
	return false
}
