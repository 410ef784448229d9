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

// onceFlag watches the flag it wraps for a value that replaces a
// different one.
type onceFlag struct {
	flag.Value
	fl          *flag.Flag
	values      int    // how many values it was given
	first, last string // the first and the last of them
	differ      bool   // whether any of them differs from the first
}

// onceBoolFlag is a onceFlag of a switch, which the flag package lets
// stand without a value.
type onceBoolFlag struct{ *onceFlag }

func (o onceBoolFlag) IsBoolFlag() bool { return true }

func (o *onceFlag) Set(text string) error {
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

// onceFlags puts a onceFlag in place of every flag of fs that holds one
// value.
func onceFlags(fs *flag.FlagSet) onceFlagSet {
	var set onceFlagSet
	fs.VisitAll(func(f *flag.Flag) {
		if _, ok := f.Value.(repeatableFlag); ok {
			return
		}
		o := &onceFlag{Value: f.Value, fl: f}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
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
