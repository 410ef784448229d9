package cli

import (
	"cmp"
	"flag"
	"maps"
	"slices"
	"strconv"
	"strings"

	"apic/core"
	"apic/sims"
)

// evalDefaults are the defaults of eval's flags that a sweep may set,
// as sameAs spells them: a cell that sets one runs as one that does not.
var evalDefaults = map[string]string{"noise": "0", "samples": "32", "refine": "-1", "z-theta-prior": "-1"}

// trainFlagDefaults are the defaults of train's flags that a sweep may
// set (its training axes, and the backbone) and that are the same for
// every system, read from train's flags themselves (register) and
// spelled as sameAs spells them. Left out are the flags whose default
// stands for the system's (systemDefaultFlags: trainDefaults takes
// those from core.DefaultConfig) and --noise, whose default is not to
// set it: no value of it trains as its absence does.
var trainFlagDefaults = func() map[string]string {
	var f trainFlags
	fs := flag.NewFlagSet("train", flag.ContinueOnError)
	f.register(fs)
	backbone, _ := lookupAxis("backbone")
	defaults := map[string]string{}
	for _, a := range append([]sweepAxis{backbone}, trainAxes...) {
		if a.flag != "noise" && !slices.Contains(systemDefaultFlags, a.flag) {
			defaults[a.flag] = a.sameAs(fs.Lookup(a.flag).DefValue)
		}
	}
	return defaults
}()

// systemDefaultFlags are train's flags whose default is the system's
// (or the backbone's): their flag default only stands for it (0, -1,
// ""), and trainDefaults reads the value from core.DefaultConfig.
var systemDefaultFlags = []string{"hidden", "layers", "latent", "latent-delta", "dec-hidden", "dec-layers", "heads",
	"steps1", "steps2", "batch", "val-every", "val-tasks", "context-range"}

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
