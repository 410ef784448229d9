package core

import (
	"reflect"
	"testing"
)

// TestFittedSeesEveryFitField sets each field of the inference settings
// that DropFit forgets, one at a time, and asks Fitted to notice it:
// Fitted lists SpreadFit's fields by hand, so a field added to SpreadFit
// or Infer without a line there would be lost on a retrained model.
func TestFittedSeesEveryFitField(t *testing.T) {
	kept := map[string]bool{"Refine": true} // a setting, not a fit
	inf := reflect.TypeOf(Infer{})
	for i := range inf.NumField() {
		f := inf.Field(i)
		if kept[f.Name] {
			continue
		}
		if f.Name == "SpreadFit" {
			sf := f.Type
			for j := range sf.NumField() {
				var m Model
				setNonZero(t, reflect.ValueOf(&m.Config.Infer).Elem().Field(i).Field(j))
				checkFitted(t, &m, "SpreadFit."+sf.Field(j).Name)
			}
			continue
		}
		var m Model
		setNonZero(t, reflect.ValueOf(&m.Config.Infer).Elem().Field(i))
		checkFitted(t, &m, f.Name)
	}
	var m Model
	if m.Fitted() {
		t.Error("a model with no fit reports one")
	}
}

// checkFitted asserts that m reports a fit, and none after DropFit.
func checkFitted(t *testing.T, m *Model, field string) {
	t.Helper()
	if !m.Fitted() {
		t.Errorf("Infer.%s set: Fitted() = false", field)
	}
	m.DropFit()
	if m.Fitted() {
		t.Errorf("Infer.%s set, then DropFit: Fitted() = true", field)
	}
}

// setNonZero gives v a value other than its zero.
func setNonZero(t *testing.T, v reflect.Value) {
	t.Helper()
	switch v.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Float64:
		v.SetFloat(1)
	case reflect.Int:
		v.SetInt(1)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
	default:
		t.Fatalf("setNonZero: no rule for a %s", v.Kind())
	}
}
