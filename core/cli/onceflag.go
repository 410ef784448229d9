package cli

import (
	"flag"
	"fmt"

	"apic/core"
)

// A flag that holds one value takes it once. Given again with another
// value (calibrate --data a.csv --data b.csv, eval --system spring
// --system lv) it is refused, naming the flag and both values: the flag
// package would keep the last, and which of the two the run was meant
// to use is a guess either way. The same value again passes (a script's
// common flags repeated), told by what the flag reads: a name in any
// case (canonicalValue), a number however it is written (0.1, 1e-1).
// Repeatable flags (--vary, --fix, compare's --checkpoint) gather every
// value and are not watched.

// repeatableFlag is a flag.Value that gathers every value it is given.
type repeatableFlag interface {
	flag.Value
	repeatable()
}

func (*stringList) repeatable() {}
func (*axisList) repeatable()   {}

// onceFlag reads every value of the flag it wraps as Env.Parse takes
// it: "" refused for a text (emptyValueError), one of the command's
// flags refused as a value (flagAsValueError), a name in its canonical
// spelling (canonicalValue); and it refuses, for a flag that holds one
// value, a value that differs from the one given before.
type onceFlag struct {
	flag.Value
	fl         *flag.Flag
	repeatable bool                   // a repeatable flag (repeatableFlag): not watched
	isSwitch   bool                   // a switch (IsBoolFlag)
	isText     bool                   // a text (takesText), which refuses ""
	refused    error                  // why Set refused a value, for Parse to report as it is
	defined    func(name string) bool // whether the command has a flag of this name
	given      bool                   // whether a value was given
	first      string                 // the first value as given
	firstRead  string                 // and as the flag read it (its String)
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
	given := text
	if text == "" && o.isText {
		o.refused = emptyValueError(o.fl)
		return o.refused
	}
	if name, ok := flagSpelled(text); ok && (o.defined(name) || name == "h" || name == "help") {
		o.refused = flagAsValueError(o.fl, text)
		return o.refused
	}
	text = canonicalValue(o.fl.Name, text)
	if o.isSwitch {
		text = canonicalName(text, boolNames) // TRUE and True the flag package reads, tRUE too
	}
	if err := o.Value.Set(text); err != nil || o.repeatable {
		return err
	}
	read := o.Value.String()
	if !o.given {
		o.given, o.first, o.firstRead = true, given, read
		return nil
	}
	if read != o.firstRead {
		// Parse names the flag ("--system: ...").
		return fmt.Errorf("given twice, as %s and as %s, and it takes one value: give it once", core.QuoteInput(o.first), core.QuoteInput(given))
	}
	return nil
}

// onceFlagSet is the wrapped flags of a flag set being parsed.
type onceFlagSet []*onceFlag

// onceFlags puts a onceFlag in place of every flag of fs.
func onceFlags(fs *flag.FlagSet) onceFlagSet {
	var set onceFlagSet
	defined := func(name string) bool { return fs.Lookup(name) != nil }
	fs.VisitAll(func(f *flag.Flag) {
		_, repeatable := f.Value.(repeatableFlag)
		o := &onceFlag{Value: f.Value, fl: f, repeatable: repeatable, isText: takesText(f.Value), defined: defined}
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
// types, and returns the first value refused in words of its own, if
// any.
func (set onceFlagSet) restore() error {
	var refused error
	for _, o := range set {
		o.fl.Value = o.Value
		if refused == nil {
			refused = o.refused
		}
	}
	return refused
}
