package cli

import (
	"flag"
	"strings"
)

// A mistyped command or flag name ("simulat", "--sytem") is refused
// with the name that was likely meant, as git and go do: the error
// alone leaves a newcomer to read the whole list for a one-letter slip.

// closestName returns the candidate within a slip of name, ignoring
// case: at most one edit (an insertion, deletion, substitution or
// swap of neighbours) for names of up to four letters, two for longer
// ones; "" when none is or when two are equally near. Candidates are
// considered in order, so a caller's sorted list gives a stable answer.
func closestName(name string, candidates []string) string {
	limit := 2
	if len([]rune(name)) <= 4 {
		limit = 1
	}
	best, bestDist, tie := "", limit+1, false
	for _, c := range candidates {
		d := editDistance(strings.ToLower(name), strings.ToLower(c))
		switch {
		case d < bestDist:
			best, bestDist, tie = c, d, false
		case d == bestDist:
			tie = true
		}
	}
	if tie {
		return ""
	}
	return best
}

// commandNames lists every command apic takes, for closestName.
func commandNames() []string {
	names := []string{"help", "version"}
	for _, c := range Commands() {
		names = append(names, c.Name)
	}
	return names
}

// flagNames lists fs's flags in order, for closestName.
func flagNames(fs *flag.FlagSet) []string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return names
}

// didYouMean is "; did you mean NAME?" with prefix before NAME for the
// closest of candidates to name, or "" when none is close.
func didYouMean(name, prefix string, candidates []string) string {
	if c := closestName(name, candidates); c != "" {
		return "; did you mean " + prefix + c + "?"
	}
	return ""
}

// editDistance is the optimal string alignment distance between a and
// b: the fewest insertions, deletions, substitutions and swaps of two
// neighbouring letters that turn a into b.
func editDistance(a, b string) int {
	s, t := []rune(a), []rune(b)
	// d[i][j]: the distance between s[:i] and t[:j].
	d := make([][]int, len(s)+1)
	for i := range d {
		d[i] = make([]int, len(t)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(s); i++ {
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(s)][len(t)]
}
