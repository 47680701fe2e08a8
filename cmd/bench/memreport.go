package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strings"
)

// memReport writes, when BENCH_WORKER_MEMSTATS is set, what the worker child's resident memory is
// made of at one moment: the process's resident set split into anonymous and file-backed pages
// (/proc/self/status) and the Go runtime's own accounting (heap, stacks, runtime overhead, the GC's
// goal), so an RSS figure can be traced to its owner.
func memReport(w io.Writer, when string) {
	if os.Getenv("BENCH_WORKER_MEMSTATS") == "" {
		return
	}
	status := map[string]string{}
	if f, err := os.Open("/proc/self/status"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			k, v, ok := strings.Cut(sc.Text(), ":")
			if ok {
				status[k] = strings.TrimSpace(v)
			}
		}
		f.Close()
	}
	names := []string{
		"/memory/classes/total:bytes",
		"/memory/classes/heap/objects:bytes",
		"/memory/classes/heap/free:bytes",
		"/memory/classes/heap/released:bytes",
		"/memory/classes/heap/stacks:bytes",
		"/memory/classes/heap/unused:bytes",
		"/memory/classes/metadata/other:bytes",
		"/memory/classes/metadata/mspan/inuse:bytes",
		"/memory/classes/os-stacks:bytes",
		"/memory/classes/other:bytes",
		"/memory/classes/profiling/buckets:bytes",
		"/gc/heap/goal:bytes",
		"/gc/cycles/total:gc-cycles",
		"/sched/goroutines:goroutines",
	}
	samples := make([]metrics.Sample, len(names))
	for i, n := range names {
		samples[i].Name = n
	}
	metrics.Read(samples)
	fmt.Fprintf(w, "memstats %s: VmRSS %s (anon %s, file %s), VmHWM %s\n", when,
		status["VmRSS"], status["RssAnon"], status["RssFile"], status["VmHWM"])
	for _, m := range topMappings(5) {
		fmt.Fprintf(w, "  mapping %-60s %8d kB\n", m.name, m.rss)
	}
	for _, s := range samples {
		switch s.Value.Kind() {
		case metrics.KindUint64:
			v := s.Value.Uint64()
			if strings.HasSuffix(s.Name, ":bytes") {
				fmt.Fprintf(w, "  %-45s %8.1f MiB\n", s.Name, float64(v)/(1<<20))
			} else {
				fmt.Fprintf(w, "  %-45s %d\n", s.Name, v)
			}
		}
	}
}

// writeHeapProfile writes the allocations profile (everything allocated since start, package
// initialisation included) to BENCH_WORKER_MEMPROFILE, if set.
func writeHeapProfile() {
	file := os.Getenv("BENCH_WORKER_MEMPROFILE")
	if file == "" {
		return
	}
	f, err := os.Create(file)
	if err != nil {
		return
	}
	defer f.Close()
	pprof.Lookup("allocs").WriteTo(f, 0)
}

type mapping struct {
	name string
	rss  int64
}

// topMappings sums /proc/self/smaps' Rss per mapped file ("[anon]" for the rest) and returns the
// n largest.
func topMappings(n int) []mapping {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return nil
	}
	defer f.Close()
	by := map[string]int64{}
	name := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		if len(fields) >= 5 && strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":") {
			name = "[anon]"
			if len(fields) >= 6 {
				name = fields[5]
			}
			continue
		}
		if v, ok := strings.CutPrefix(line, "Rss:"); ok {
			var kb int64
			fmt.Sscan(strings.TrimSuffix(strings.TrimSpace(v), " kB"), &kb)
			by[name] += kb
		}
	}
	var out []mapping
	for k, v := range by {
		out = append(out, mapping{k, v})
	}
	slices.SortFunc(out, func(a, b mapping) int { return int(b.rss - a.rss) })
	return out[:min(n, len(out))]
}
