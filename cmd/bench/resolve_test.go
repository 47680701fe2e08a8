package main

import (
	"strconv"
	"strings"
	"testing"
)

// TestResolveDiary: the generated diary is Letterboxd's diary.csv with every film once and the
// rest rewatches, the same for the same sizes, and its films are on the fake TMDb as planned:
// the resolvable ones once under their title and year, the twins twice, the missing never.
func TestResolveDiary(t *testing.T) {
	films, cat, diary := resolveDiary(500, 300)
	if _, _, again := resolveDiary(500, 300); again != diary {
		t.Error("two diaries of the same size differ")
	}
	lines := strings.Split(strings.TrimSpace(diary), "\n")
	if lines[0] != "Date,Name,Year,Letterboxd URI,Rating,Rewatch,Tags,Watched Date" || len(lines) != 501 {
		t.Fatalf("header %q, %d lines", lines[0], len(lines))
	}
	if n := strings.Count(diary, ",Yes,"); n != 200 {
		t.Errorf("%d rewatches, want 200", n)
	}
	if len(films) != 300 {
		t.Fatalf("%d films", len(films))
	}
	onTMDb := map[string]int{}
	for _, f := range cat {
		onTMDb[f.Title+"|"+f.ReleaseDate[:4]]++
	}
	missing, twins := 0, 0
	for _, f := range films {
		n := onTMDb[f.title+"|"+strconv.Itoa(f.year)]
		switch {
		case f.ext != "" && n != 1:
			t.Errorf("%s (%d) is on TMDb %d times, want once", f.title, f.year, n)
		case f.ext == "" && n == 0:
			missing++
		case f.ext == "" && n == 2:
			twins++
		case f.ext == "":
			t.Errorf("unresolvable %s (%d) is on TMDb %d times", f.title, f.year, n)
		}
	}
	if missing == 0 || twins == 0 {
		t.Errorf("%d missing and %d twin films, want some of each", missing, twins)
	}
	if got := resolvableRows(films, diary); got < 450 || got > 495 {
		t.Errorf("%d resolvable rows of 500", got)
	}
}
