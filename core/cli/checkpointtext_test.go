package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTextGivenAsCheckpoint: a CSV of observations, a command's JSON
// output or any other text file given as a checkpoint is refused as
// text of its kind, quoting its first line, where the safetensors
// reader alone spoke of a header length in the quintillions; binary
// data that is not safetensors keeps the reader's reason.
func TestTextGivenAsCheckpoint(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("x", 600) // longer than the bytes read
	cases := []struct{ name, content, want string }{
		{"obs.csv", "\n# written by apic simulate --csv (lv)\nt,prey,predator\n0,1,2\n",
			`a CSV file (observations go to calibrate --data) that begins "# written by apic simulate --csv (lv)"`},
		{"eval.json", "{\n  \"system\": \"spring\"\n}\n", `a JSON file (a command's --json output) that begins "{"`},
		{"notes.txt", "\ufeffθ̂ by hand, " + long, `a text file that begins "θ̂ by hand, ` + strings.Repeat("x", 28) + `…"`},
		{"blob.bin", "\xff\xfe\x00\x01binary\x00\x00", "its first 8 bytes give a header length of"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name)
			if err := os.WriteFile(path, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			_, _, err := OpenCheckpoint(path)
			want := path + " is not a checkpoint (safetensors) file: " + tc.want
			if err == nil || !strings.HasPrefix(err.Error(), want) || !IsUsageError(err) {
				t.Errorf("got  %v\nwant a usage error starting %q", err, want)
			}
		})
	}
}
