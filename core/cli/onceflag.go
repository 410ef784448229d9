package cli

import (
	"flag"
	"fmt"

	"apic/core"
)

// A flag that holds one value keeps the last of the values it is given,
// as the flag package does: scripts give a common set of flags and then
// the ones a run changes. A different value given later is said on
// standard error, so that a mistyped repeat (calibrate --data a.csv
// --data b.csv) does not pass unseen. Repeatable flags (--vary, --fix,
// compare's --checkpoint) gather every value and are not watched.

// repeatableFlag is a flag.Value that gathers every value it is given.
type repeatableFlag interface {
	flag.Value
	repeatable()
}

func (*stringList) repeatable() {}
func (*axisList) repeatable()   {}

// onceFlag reads every value of the flag it wraps in its canonical
// spelling (canonicalValue: a name in any case) and watches a flag that
// holds one value for a value that replaces a different one.
type onceFlag struct {
	flag.Value
	fl          *flag.Flag
	repeatable  bool   // a repeatable flag (repeatableFlag): not watched
	isSwitch    bool   // a switch (IsBoolFlag)
	values      int    // how many values it was given
	first, last string // the first and the last of them
	differ      bool   // whether any of them differs from the first
}

// boolNames are the words a switch's value is given in, which it takes
// in any case, as names are (canonicalValue); the flag package reads
// 1, 0, t and f too.
var boolNames = []string{"true", "false"}

// onceBoolFlag is a onceFlag of a switch, which the flag package lets
// stand without a value.
type onceBoolFlag struct{ *onceFlag }

func (o onceBoolFlag) IsBoolFlag() bool { return true }

func (o *onceFlag) Set(text string) error {
	text = canonicalValue(o.fl.Name, text)
	if o.isSwitch {
		text = canonicalName(text, boolNames) // TRUE and True the flag package reads, tRUE too
	}
	if o.repeatable {
		return o.Value.Set(text)
	}
	if o.values == 0 {
		o.first = text
	}
	o.values++
	o.last = text
	o.differ = o.differ || text != o.first
	return o.Value.Set(text)
}

// note says which value a flag given different values keeps, or is "".
func (o *onceFlag) note() string {
	if !o.differ {
		return ""
	}
	return fmt.Sprintf("--%s was given %d times, first as %s, last as %s: the last is used", o.fl.Name, o.values, core.QuoteInput(o.first), core.QuoteInput(o.last))
}

// onceFlagSet is the wrapped flags of a flag set being parsed.
type onceFlagSet []*onceFlag

// onceFlags puts a onceFlag in place of every flag of fs.
func onceFlags(fs *flag.FlagSet) onceFlagSet {
	var set onceFlagSet
	fs.VisitAll(func(f *flag.Flag) {
		_, repeatable := f.Value.(repeatableFlag)
		o := &onceFlag{Value: f.Value, fl: f, repeatable: repeatable}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			o.isSwitch = true
			f.Value = onceBoolFlag{o}
		} else {
			f.Value = o
		}
		set = append(set, o)
	})
	return set
}

// restore puts the wrapped values back, for the help that names their
// types, and returns the notes on the values replaced.
func (set onceFlagSet) restore() []string {
	var notes []string
	for _, o := range set {
		o.fl.Value = o.Value
		if n := o.note(); n != "" {
			notes = append(notes, n)
		}
	}
	return notes
}
