package tui

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"apic/core"
	"apic/core/cli"
	"apic/sims"
)

// runProgram runs the explorer model m (built by New) on the terminal
// (in and out, nil for the process's own) and returns when the user
// quits. Training runs are stopped and their goroutines have ended by the
// time it returns, and Bubble Tea has restored the terminal. Cancelling
// the model's context (SIGTERM) quits as well. extra are further
// options (a test's window size, where out is no terminal).
func runProgram(m Model, in io.Reader, out io.Writer, extra ...tea.ProgramOption) error {
	ctx := m.opts.Context // New sets it
	// The command line's signal handler (main.go) cancels ctx on
	// SIGTERM, SIGHUP and an external SIGINT, which quits the program as
	// an interruption. Bubble Tea's own handler would race it: with both,
	// its quit message could be sent after the event loop had stopped for
	// the cancelled context, and the program then waited for it forever.
	popts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithoutSignalHandler()}
	if in != nil {
		popts = append(popts, tea.WithInput(in))
	}
	if out != nil {
		popts = append(popts, tea.WithOutput(out))
	}
	if m.opts.ASCII {
		popts = append(popts, tea.WithColorProfile(colorprofile.ASCII))
	}
	final, err := tea.NewProgram(m, append(popts, extra...)...).Run()
	fm, ok := final.(Model)
	if !ok {
		fm = m
	}
	fm.stopAll()
	// A save still writing its file is finished before apic exits, and
	// its weights then count as saved (saveJobs).
	saves := unseenSavesText(fm.saves.finish())
	switch {
	case errors.Is(err, tea.ErrInterrupted):
		return keptOrNot(context.Canceled, saves)
	case errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil:
		// A signal, not a key: no one was asked about unsaved weights.
		return keptOrNot(ctx.Err(), saves, keptText(fm.keepUnsaved()))
	case err != nil:
		return fmt.Errorf("terminal: %w", err)
	case saves != "":
		// q again while a save wrote its file ("q again to force")
		// closed the explorer before the save said how it ended.
		return quitWithSaves(out, saves, fm.keepUnsaved)
	}
	return nil
}

// keptOrNot is err with what became of the session's weights (the
// non-empty of notes) for the command line to print after
// "interrupted", or err alone.
func keptOrNot(err error, notes ...string) error {
	notes = slices.DeleteFunc(notes, func(s string) bool { return s == "" })
	if len(notes) == 0 {
		return err
	}
	return cli.KeptWeights(err, strings.Join(notes, "; "))
}

// quitWithSaves reports, after a quit that did not wait for them, the
// saves that ended once the explorer had closed: one that failed is the
// command's error, one that wrote its file a line on out (the
// terminal's, where out is nil). A failed save's weights are kept by
// keep (keepUnsaved), as a signal keeps them: q again meant "do not
// wait", not "drop the weights", and no one is left to save them by hand.
func quitWithSaves(out io.Writer, saves string, keep func() (saved, failed []string)) error {
	if strings.Contains(saves, " failed: ") {
		return keptOrNot(errors.New(saves), keptText(keep()))
	}
	if out == nil {
		out = os.Stdout
	}
	_, err := fmt.Fprintf(out, "apic explore: %s\n", saves)
	return err
}

// Command is the "explore" subcommand for apic's command line.
func Command() cli.Command {
	return cli.Command{
		Name:    "explore",
		Summary: "open the interactive explorer (the default on a terminal)",
		Usage: `apic explore [--system SYS] [--backbone B] [--checkpoint FILE] [--seed N] [--tasks N] [--ascii]

Opens a terminal UI over the engine: pick a system and backbone, move the
context size, noise and θ by hand and watch amortized inference answer at
once; change λθ, λδ or the regulariser to load the embedded ablation
atlas's model trained at that value (lnp; apic inspect --atlas lists
them), or retrain in the background; save and reopen checkpoints. The
metrics show the realization on screen beside the mean ± 95% interval
over 32 seeded realizations (--tasks N: fewer answer sooner over a slow
link, more give smoother curves; --realizations N, its former name,
works too); A draws those averages across the selected control's values
(the ablation view), d the calibration diagnostics over the same
realizations. Press ? inside for every key.

Needs a terminal of at least 80×22; --ascii draws in ASCII alone,
without colours (for terminals without UTF-8), as the explorer does by
itself under a locale that is not UTF-8 (LANG=C; --ascii=false keeps
Unicode). q and Ctrl-C ask twice while weights trained in the session
are unsaved, and u asks before it drops them; q waits for a save still
writing its file (q again closes the explorer, and apic finishes the
file before it exits). A SIGTERM or a closed SSH session (SIGHUP)
finishes such a save and saves the unsaved weights instead, to new files
in the current directory (in $TMPDIR or /tmp where it takes none), and
says where.

Without a shipped checkpoint for the chosen system and backbone the
explorer starts from untrained weights and says so; press t to train.`,
		Run: runExplore,
	}
}

func runExplore(ctx context.Context, args []string, env *cli.Env) error {
	fs := env.FlagSet()
	system := fs.String("system", "spring", "benchmark system: "+strings.Join(sims.Names(), ", "))
	backbone := fs.String("backbone", string(core.LNP), "neural-process backbone: cnp, lnp or anp")
	checkpoint := fs.String("checkpoint", "", "open this checkpoint `file`, or a shipped one as embedded:NAME (it names the system and backbone; --system and --backbone, if given, must match it)")
	seed := fs.Uint64("seed", 1, "seed of the realization on screen, ≥ 1 (as in apic simulate --seed)")
	tasks := tasksFlag(fs)
	ascii := fs.Bool("ascii", false, "ASCII alone, without colours: lines as - | / \\, Greek letters as the Symbol font's keys (θ q, ω w); on by itself under a locale that is not UTF-8")
	if err := env.Parse(fs, args); err != nil {
		return err
	}
	if err := cli.RefuseEmptyPaths(fs, "checkpoint"); err != nil {
		return err
	}
	if _, err := sims.Lookup(*system); err != nil {
		return cli.UsageError("%v", err)
	}
	if _, err := core.ParseBackbone(*backbone); err != nil {
		return cli.UsageError("%v", err)
	}
	if *seed == 0 {
		// Options reads 0 as "the default"; r steps on from seed 1.
		return cli.UsageError("--seed must be ≥ 1, got 0")
	}
	if err := checkTasks(fs, *tasks); err != nil {
		return err
	}
	// The model is built before the terminal is needed, so a checkpoint
	// file that cannot be read is a usage error as in the other commands.
	opts := Options{System: *system, Backbone: *backbone, Checkpoint: *checkpoint, Seed: *seed, Averages: *tasks, ASCII: wantASCII(fs, *ascii, os.Getenv), Context: ctx}
	m, err := New(opts)
	if err != nil {
		return cli.UsageError("%v", err)
	}
	if err := checkpointAgrees(m, fs, *checkpoint); err != nil {
		return err
	}
	if !env.Terminal {
		return cli.UsageError("the explorer needs a terminal (stdout is not one); for scripts use the other commands")
	}
	return runProgram(m, nil, nil)
}

// wantASCII is whether the explorer draws in ASCII alone: --ascii when
// given (--ascii=false too, for a terminal that shows UTF-8 whatever
// the locale says), else whether the locale's character set is not
// UTF-8. A terminal under LANG=C shows Unicode box drawing and Greek
// letters as mojibake, so the explorer falls back to ASCII there by
// itself.
func wantASCII(fs *flag.FlagSet, ascii bool, getenv func(string) string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "ascii" })
	if given {
		return ascii
	}
	return !localeIsUTF8(getenv)
}

// localeIsUTF8 reads the character set of the locale as the C library
// does: the first of LC_ALL, LC_CTYPE and LANG that is set decides. A
// locale with none of them set tells nothing (a container or an SSH
// session that passes no locale often has a UTF-8 terminal), so it
// counts as UTF-8; one set to C, POSIX or a non-UTF-8 charset does not.
func localeIsUTF8(getenv func(string) string) bool {
	for _, name := range []string{"LC_ALL", "LC_CTYPE", "LANG"} {
		if v := getenv(name); v != "" {
			v = strings.ToLower(v)
			return strings.Contains(v, "utf-8") || strings.Contains(v, "utf8")
		}
	}
	return true
}

// tasksFlag registers explore's --tasks, the number of seeded
// realizations the averages, the ablation view and the diagnostics
// evaluate: every other command's name for that count. --realizations,
// the explorer's name for it before, stays as an alias, so that no
// command line written for it breaks.
func tasksFlag(fs *flag.FlagSet) *int {
	n := fs.Int("tasks", avgTasks, fmt.Sprintf("seeded realizations the sidebar's mean ± 95%%, the ablation view (A) and the diagnostics (d) average over, %d to %d", LimitRealizations.Min, LimitRealizations.Max))
	fs.IntVar(n, "realizations", avgTasks, "the same as --tasks (the explorer's former name for it)")
	return n
}

// checkTasks refuses an n outside LimitRealizations, naming the flag
// given (--tasks or its alias --realizations), and the two given at
// once, which would leave the later to win unseen.
func checkTasks(fs *flag.FlagSet, n int) error {
	var given []string
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "tasks" || f.Name == "realizations" {
			given = append(given, "--"+f.Name)
		}
	})
	if len(given) > 1 {
		return cli.UsageError("--realizations is the former name of --tasks: give one of them")
	}
	limit := LimitRealizations
	if len(given) == 1 {
		limit.Name = strings.TrimPrefix(given[0], "--")
	}
	if err := limit.Check(n); err != nil {
		return cli.UsageError("--%v", err)
	}
	return nil
}

// checkpointAgrees refuses a --system or --backbone given beside
// --checkpoint that is not the checkpoint's, by the rule of eval and
// calibrate (cli.CheckpointAgrees). Only flags given count: a flag left
// at its default says nothing and passes.
func checkpointAgrees(m Model, fs *flag.FlagSet, path string) error {
	if path == "" {
		return nil
	}
	given := map[string]string{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = f.Value.String() })
	return cli.CheckpointAgrees(path, m.entry().model.Config.Arch, given["system"], given["backbone"])
}
