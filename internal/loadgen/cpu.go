package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTick is the unit of utime and stime in /proc/PID/stat: USER_HZ,
// 100 on every Linux the generator runs on (reading sysconf(_SC_CLK_TCK)
// would take cgo).
const clockTick = 10 * time.Millisecond

// processCPU is the user plus system CPU time process pid has used, all its
// threads, from /proc/PID/stat. The CPU a request costs the server is a
// steadier figure than ops/s while other work loads the machine.
func processCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	return parseStatCPU(string(b))
}

// parseStatCPU reads utime and stime (fields 14 and 15) of a
// /proc/PID/stat line. The command name (field 2) is in parentheses and
// may hold spaces, so fields are counted from the last ')'.
func parseStatCPU(stat string) (time.Duration, error) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, fmt.Errorf("no command name in %q", stat)
	}
	f := strings.Fields(stat[i+1:])
	// f[0] is field 3 (state): utime and stime are f[11] and f[12].
	if len(f) < 13 {
		return 0, fmt.Errorf("short stat line %q", stat)
	}
	var ticks int64
	for _, s := range f[11:13] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("stat field %q: %w", s, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * clockTick, nil
}
