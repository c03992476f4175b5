package main

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// startup execs bin runs times with args (each "{dir}" replaced by a fresh
// empty directory, "{addr}" by a free loopback address and "{port}" by
// its port) and measures, for
// each start, the time from exec to the first answered request (a
// ListTables on a new connection, tried every 200 µs), the CPU time the
// server had used by then, and the resident
// memory after idle with nothing more asked of the server: VmRSS, and its
// two parts, anonymous (the process's own: Go heap, stacks, C malloc) and
// file-backed (the pages of the binary and libraries it maps, shared page
// cache; how many the kernel maps depends on how the file sits in the
// page cache, large folios mapping 2 MB at a time). It prints each start
// and then the medians and ranges.
func startup(bin string, args []string, runs int, idle time.Duration) error {
	var firsts, cpus, rsses, anons, files []float64
	fmt.Printf("%-4s %9s %7s %7s %8s %8s\n", "run", "first_ms", "cpu_ms", "rss_mb", "anon_mb", "file_mb")
	for i := range runs {
		first, cpu, m, err := startOnce(bin, args, idle)
		if err != nil {
			return fmt.Errorf("run %d: %w", i+1, err)
		}
		ms, cms := float64(first.Microseconds())/1000, float64(cpu.Microseconds())/1000
		mb := func(k string) float64 { return float64(m[k]) / 1024 }
		firsts, cpus, rsses, anons, files = append(firsts, ms), append(cpus, cms), append(rsses, mb("VmRSS")), append(anons, mb("RssAnon")), append(files, mb("RssFile"))
		fmt.Printf("%-4d %9.1f %7.1f %7.1f %8.1f %8.1f\n", i+1, ms, cms, mb("VmRSS"), mb("RssAnon"), mb("RssFile"))
	}
	span := func(v []float64) string {
		return fmt.Sprintf("median %.1f (%.1f–%.1f)", median(v), slices.Min(v), slices.Max(v))
	}
	fmt.Printf("first answer ms: %s; CPU ms by then: %s; after %s idle, MB: RSS %s, anonymous %s, file-backed %s\n",
		span(firsts), span(cpus), idle, span(rsses), span(anons), span(files))
	return nil
}

// cpuTime is the CPU time pid's threads have had so far
// (/proc/PID/task/*/schedstat, nanoseconds on the CPU): unlike the wall
// time to the first answer, it barely moves with what else the machine
// runs. Threads that already ended are not counted.
func cpuTime(pid int) time.Duration {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	var total time.Duration
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		if f := strings.Fields(string(b)); len(f) > 0 {
			if ns, err := strconv.ParseInt(f[0], 10, 64); err == nil {
				total += time.Duration(ns)
			}
		}
	}
	return total
}

// status is the kB figures of /proc/PID/status (VmRSS, RssAnon, RssFile…).
func status(pid int) (map[string]int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return nil, err
	}
	m := map[string]int64{}
	for line := range strings.Lines(string(b)) {
		k, v, ok := strings.Cut(line, ":")
		if n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64); ok && err == nil {
			m[k] = n
		}
	}
	return m, nil
}

func median(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func startOnce(bin string, args []string, idle time.Duration) (time.Duration, time.Duration, map[string]int64, error) {
	dir, err := os.MkdirTemp("", "memprobe-start-")
	if err != nil {
		return 0, 0, nil, err
	}
	defer os.RemoveAll(dir)
	addr, err := freeAddr()
	if err != nil {
		return 0, 0, nil, err
	}
	a := make([]string, len(args))
	for i, s := range args {
		s = strings.ReplaceAll(s, "{dir}", filepath.Join(dir, "data"))
		s = strings.ReplaceAll(s, "{addr}", addr)
		a[i] = strings.ReplaceAll(s, "{port}", addr[strings.LastIndexByte(addr, ':')+1:])
	}
	cmd := exec.Command(bin, a...)
	log, err := os.Create(filepath.Join(dir, "server.log"))
	if err != nil {
		return 0, 0, nil, err
	}
	defer log.Close()
	cmd.Stdout, cmd.Stderr = log, log
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, 0, nil, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	}()
	var first, cpu time.Duration
	for {
		if answered(addr) {
			first = time.Since(start)
			cpu = cpuTime(cmd.Process.Pid)
			break
		}
		select {
		case err := <-exited:
			out, _ := os.ReadFile(log.Name())
			exited <- err
			return 0, 0, nil, fmt.Errorf("the server exited (%v): %s", err, out)
		default:
		}
		if time.Since(start) > 20*time.Second {
			return 0, 0, nil, fmt.Errorf("no answer on %s after 20 s", addr)
		}
		time.Sleep(200 * time.Microsecond)
	}
	time.Sleep(idle)
	m, err := status(cmd.Process.Pid)
	return first, cpu, m, err
}

// answered says whether a ListTables sent on a new connection to addr got
// an HTTP 200 answer.
func answered(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	body := "{}"
	now := time.Now().UTC()
	fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: %s\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\n"+
		"Content-Type: application/x-amz-json-1.0\r\nX-Amz-Date: %s\r\n"+
		"Authorization: AWS4-HMAC-SHA256 Credential=AKIAMEMPROBE/%s/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date;x-amz-target, Signature=%s\r\n"+
		"Content-Length: %d\r\n\r\n%s", addr, now.Format("20060102T150405Z"), now.Format("20060102"), strings.Repeat("0", 64), len(body), body)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}
