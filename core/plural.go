package core

import "strconv"

// Count is "n noun" with the noun in the plural unless n is 1 ("1
// observation", "30 observations"); noun is singular and regular.
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
