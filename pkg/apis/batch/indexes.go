package batch

import (
	"fmt"
	"strconv"
	"strings"
)

// parseIndexes parses a list of indexes of an indexed Job, such as
// "1,3-5,7": increasing intervals below completions. It returns how many
// indexes the list holds.
func parseIndexes(s string, completions int32) (int32, error) {
	if s == "" {
		return 0, nil
	}
	var total int32
	last := int32(-1)
	for _, interval := range strings.Split(s, ",") {
		x, y, err := parseInterval(interval, completions)
		if err != nil {
			return 0, err
		}
		if last >= x {
			return 0, fmt.Errorf("non-increasing order, previous: %d, current: %d", last, x)
		}
		total += y - x + 1
		last = y
	}
	return total, nil
}

// parseInterval parses "x" or "x-y", with x < y < completions.
func parseInterval(s string, completions int32) (int32, int32, error) {
	limits := strings.Split(s, "-")
	if len(limits) > 2 {
		return 0, 0, fmt.Errorf("the fragment %q violates the requirement that an index interval can have at most two parts separated by '-'", s)
	}
	x, err := parseIndex(limits[0], completions)
	if err != nil {
		return 0, 0, err
	}
	if len(limits) == 1 {
		return x, x, nil
	}
	y, err := parseIndex(limits[1], completions)
	if err != nil {
		return 0, 0, err
	}
	if x >= y {
		return 0, 0, fmt.Errorf("non-increasing order, previous: %d, current: %d", x, y)
	}
	return x, y, nil
}

func parseIndex(s string, completions int32) (int32, error) {
	i, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("cannot convert string to integer for index: %q", s)
	}
	if i >= int(completions) {
		return 0, fmt.Errorf("too large index: %q", s)
	}
	return int32(i), nil
}

// indexesOverlap returns an error naming the first index both lists
// hold. Intervals that do not parse are skipped: the format is reported
// on its own.
func indexesOverlap(completed, failed string, completions int32) error {
	if completed == "" || failed == "" {
		return nil
	}
	cs, fs := strings.Split(completed, ","), strings.Split(failed, ",")
	ci, fi := 0, 0
	cx, cy, cErr := parseInterval(cs[ci], completions)
	fx, fy, fErr := parseInterval(fs[fi], completions)
	for ci < len(cs) && fi < len(fs) {
		switch {
		case cErr != nil:
			if ci++; ci < len(cs) {
				cx, cy, cErr = parseInterval(cs[ci], completions)
			}
		case fErr != nil:
			if fi++; fi < len(fs) {
				fx, fy, fErr = parseInterval(fs[fi], completions)
			}
		case cx <= fy && fx <= cy:
			return fmt.Errorf("failedIndexes and completedIndexes overlap at index: %d", max(cx, fx))
		case cx <= fx:
			if ci++; ci < len(cs) {
				cx, cy, cErr = parseInterval(cs[ci], completions)
			}
		default:
			if fi++; fi < len(fs) {
				fx, fy, fErr = parseInterval(fs[fi], completions)
			}
		}
	}
	return nil
}
