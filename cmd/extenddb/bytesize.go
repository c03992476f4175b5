package main

import (
	"fmt"
	"strconv"
	"strings"
)

// byteSize is a flag of a size in bytes, written with a binary unit
// (64MiB, 1GiB, 512KiB) or as a plain number of bytes.
type byteSize int64

var byteUnits = []struct {
	suffix string
	shift  uint
}{{"GiB", 30}, {"MiB", 20}, {"KiB", 10}, {"G", 30}, {"M", 20}, {"K", 10}, {"B", 0}}

func (b byteSize) String() string {
	for _, u := range byteUnits[:3] {
		if b != 0 && b%(1<<u.shift) == 0 {
			return strconv.FormatInt(int64(b)>>u.shift, 10) + u.suffix
		}
	}
	return strconv.FormatInt(int64(b), 10)
}

func (b *byteSize) Set(s string) error {
	num, shift := strings.TrimSpace(s), uint(0)
	for _, u := range byteUnits {
		if n, ok := strings.CutSuffix(num, u.suffix); ok {
			num, shift = strings.TrimSpace(n), u.shift
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 || n > (1<<62)>>shift {
		return fmt.Errorf("%q: want a size such as 64MiB, 1GiB or a number of bytes", s)
	}
	*b = byteSize(n << shift)
	return nil
}
