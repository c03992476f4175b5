package main

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// processCPU is the CPU time this process has used (user and system).
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}

// releaseBinaryPages unmaps from this process the pages of its own
// executable that it has mapped read-only and never changed (code,
// read-only data, the pc-line tables) and returns how many bytes of them
// were resident. They stay in the page cache, shared and reclaimable as
// before; the next use of one maps it again from there with a minor fault
// (no disk read). What it changes is the process's resident set: package
// initialisation touches code and tables all over the binary, and the
// kernel maps 64 KB (or a 2 MB folio) around each fault, so an idle server
// held 27–29 MB of the binary it no longer used (docs/performance.md,
// "Seventh round").
//
// Only mappings of the executable that are neither writable nor hold a
// single anonymous (copied-on-write) page are released: MADV_DONTNEED
// would discard such a page's contents, and it refills a clean file page
// from the unchanged file. The executable cannot change under a running
// process (ETXTBSY). The writable data segment is left alone.
func releaseBinaryPages() (released int64) {
	b, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return 0
	}
	type mapping struct {
		start, end  uintptr
		ok          bool
		rss, anonKB int64
	}
	var ms []mapping
	var cur *mapping
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Text()
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if !strings.HasSuffix(f[0], ":") { // a mapping's header: start-end perms offset dev inode path
			cur = nil
			lo, hi, ok := strings.Cut(f[0], "-")
			if !ok || len(f) < 6 || len(f[1]) < 4 {
				continue
			}
			start, err1 := strconv.ParseUint(lo, 16, 64)
			end, err2 := strconv.ParseUint(hi, 16, 64)
			if err1 != nil || err2 != nil {
				continue
			}
			readOnlyPrivate := f[1][1] == '-' && f[1][3] == 'p'
			ms = append(ms, mapping{start: uintptr(start), end: uintptr(end), ok: readOnlyPrivate && strings.HasPrefix(strings.Join(f[5:], " "), "/")})
			cur = &ms[len(ms)-1]
			continue
		}
		if cur == nil || len(f) < 2 {
			continue
		}
		n, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			continue
		}
		switch f[0] {
		case "Rss:":
			cur.rss = n
		case "Anonymous:":
			cur.anonKB = n
		}
	}
	for _, m := range ms {
		if !m.ok || m.anonKB != 0 || m.rss == 0 {
			continue
		}
		if _, _, e := syscall.Syscall(syscall.SYS_MADVISE, m.start, m.end-m.start, syscall.MADV_DONTNEED); e == 0 {
			released += m.rss << 10
		}
	}
	return released
}
