package cli

import (
	"cmp"
	"flag"
	"maps"
	"strconv"
	"strings"

	"apic/core"
	"apic/sims"
)

// evalDefaults are the defaults of eval's flags that a sweep may set,
// as sameAs spells them: a cell that sets one runs as one that does not.
var evalDefaults = map[string]string{"noise": "0", "samples": "32", "refine": "-1", "z-theta-prior": "-1", "theta-prior-scale": "0"}

// trainFlagDefaults are the defaults of train's flags that a sweep may
// set (its training axes, and the backbone) and that are the same for
// every system, read from train's flags themselves (register) and
// spelled as sameAs spells them. Left out are the flags whose default
// stands for the system's (systemDefaults: trainDefaults takes
// those from core.DefaultConfig) and --noise, whose default is not to
// set it: no value of it trains as its absence does.
var trainFlagDefaults = func() map[string]string {
	var f trainFlags
	fs := flag.NewFlagSet("train", flag.ContinueOnError)
	f.register(fs)
	backbone, _ := lookupAxis("backbone")
	defaults := map[string]string{}
	for _, a := range append([]sweepAxis{backbone}, trainAxes...) {
		if _, system := systemDefaults[a.flag]; a.flag != "noise" && !system {
			defaults[a.flag] = a.sameAs(fs.Lookup(a.flag).DefValue)
		}
	}
	return defaults
}()

// systemDefaults are train's flags whose default is the system's (or
// the backbone's), each with how trainDefaults reads it from the system
// and its default configuration (core.DefaultConfig): their flag default
// only stands for it (0, -1, "").
var systemDefaults = map[string]func(sys sims.System, cfg core.Config) string{
	"hidden":       func(_ sims.System, cfg core.Config) string { return strconv.Itoa(cfg.Arch.Hidden) },
	"layers":       func(_ sims.System, cfg core.Config) string { return strconv.Itoa(cfg.Arch.Layers) },
	"latent":       func(_ sims.System, cfg core.Config) string { return strconv.Itoa(cfg.Arch.LatentTheta) },
	"latent-delta": func(_ sims.System, cfg core.Config) string { return strconv.Itoa(cfg.Arch.LatentDelta) },
	"dec-hidden":   func(_ sims.System, cfg core.Config) string { return strconv.Itoa(cfg.Arch.DecHidden) },
	"dec-layers":   func(_ sims.System, cfg core.Config) string { return strconv.Itoa(cfg.Arch.DecLayers) },
	"heads":        func(_ sims.System, cfg core.Config) string { return strconv.Itoa(cfg.Arch.Heads) },
	"steps1":       func(_ sims.System, cfg core.Config) string { return strconv.Itoa(cfg.Train.Steps1) },
	"steps2":       func(_ sims.System, cfg core.Config) string { return strconv.Itoa(cfg.Train.Steps2) },
	"batch":        func(_ sims.System, cfg core.Config) string { return strconv.Itoa(cfg.Train.Batch) },
	"val-every":    func(_ sims.System, cfg core.Config) string { return strconv.Itoa(cfg.Train.ValEvery) },
	"val-tasks":    func(_ sims.System, cfg core.Config) string { return strconv.Itoa(cfg.Train.ValTasks) },
	"context-range": func(sys sims.System, _ core.Config) string {
		lo, hi := sys.TrainContext()
		return strconv.Itoa(lo) + ":" + strconv.Itoa(hi)
	},
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
	for flag, read := range systemDefaults {
		defaults[flag] = read(sys, cfg)
	}
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
