package tui

import (
	"fmt"
	"os"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
)

func TestDump(t *testing.T) {
	if os.Getenv("DUMP") == "" {
		t.Skip()
	}
	for _, sys := range []string{"spring", "lv", "advdiff"} {
		m, err := New(Options{System: sys, Embedded: noEmbedded})
		if err != nil {
			t.Fatal(err)
		}
		if os.Getenv("PLAIN") != "" {
			mm, _ := m.Update(tea.ColorProfileMsg{Profile: colorprofile.ASCII})
			m = mm.(Model)
		}
		cmd := m.Init()
		msg := cmd()
		mm, _ := m.Update(msg)
		m = mm.(Model)
		for _, sz := range [][2]int{{80, 24}, {160, 48}} {
			mm, _ = m.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
			m = mm.(Model)
			fmt.Println(m.render())
			fmt.Println("=====")
		}
	}
}

