package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// Everything the bench knows about a process's CPU and memory comes from
// /proc, so that it measures any server, kapi or kube-apiserver and etcd,
// the same way and without their cooperation.

// userHZ is the unit of the tick counts in /proc/<pid>/stat and /proc/stat.
// The kernel always reports them in USER_HZ, which is 100 on every Linux
// architecture Go supports, independent of the kernel's internal HZ; reading
// sysconf(_SC_CLK_TCK) would need cgo for the same answer.
const userHZ = 100

func ticksToDuration(ticks uint64) time.Duration {
	return time.Duration(ticks) * (time.Second / userHZ)
}

// memory is a process's resident set size now and at its peak ("high water
// mark"), in KiB as /proc reports them.
type memory struct {
	rssKiB int64
	hwmKiB int64
	// anonKiB is the part of RSS that is the process's own memory (heap,
	// stacks); the rest is mostly the pages of the binary it has touched,
	// which the kernel shares and can drop. Zero on kernels before 4.5,
	// which do not report it.
	anonKiB int64
}

func kibToMiB(kib int64) float64 { return float64(kib) / 1024 }

// parseProcStatus reads VmRSS, VmHWM and RssAnon from the text of
// /proc/<pid>/status.
func parseProcStatus(r io.Reader) (memory, error) {
	var m memory
	var haveRSS, haveHWM bool
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok || (name != "VmRSS" && name != "VmHWM" && name != "RssAnon") {
			continue
		}
		// The value is "<spaces><number> kB".
		fields := strings.Fields(rest)
		if len(fields) != 2 || fields[1] != "kB" {
			return memory{}, fmt.Errorf("unexpected %s line %q", name, sc.Text())
		}
		n, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return memory{}, fmt.Errorf("bad %s value: %w", name, err)
		}
		switch name {
		case "VmRSS":
			m.rssKiB, haveRSS = n, true
		case "VmHWM":
			m.hwmKiB, haveHWM = n, true
		default:
			m.anonKiB = n
		}
	}
	if err := sc.Err(); err != nil {
		return memory{}, err
	}
	// Kernel threads and zombies have no Vm* lines: say so rather than
	// reporting a 0 that looks like a measurement.
	if !haveRSS || !haveHWM {
		return memory{}, fmt.Errorf("no VmRSS/VmHWM (kernel thread or exited process?)")
	}
	return m, nil
}

// readMemory returns the memory figures of process pid.
func readMemory(pid int) (memory, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return memory{}, err
	}
	defer f.Close()
	m, err := parseProcStatus(f)
	if err != nil {
		return memory{}, fmt.Errorf("/proc/%d/status: %w", pid, err)
	}
	return m, nil
}

// parseProcStatCPU returns utime+stime, in ticks, from the text of
// /proc/<pid>/stat. The second field is the command name in parentheses and
// may itself contain spaces and parentheses, so fields are counted from the
// last ')' rather than split from the start.
func parseProcStatCPU(data []byte) (uint64, error) {
	end := bytes.LastIndexByte(data, ')')
	if end < 0 {
		return 0, fmt.Errorf("no command name in stat line")
	}
	// After ")": state(3) ppid(4) ... utime(14) stime(15), so utime is
	// the 12th field after the name.
	fields := strings.Fields(string(data[end+1:]))
	const utimeIdx, stimeIdx = 14 - 3, 15 - 3
	if len(fields) <= stimeIdx {
		return 0, fmt.Errorf("stat line has %d fields after the name, want > %d", len(fields), stimeIdx)
	}
	utime, err := strconv.ParseUint(fields[utimeIdx], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("bad utime: %w", err)
	}
	stime, err := strconv.ParseUint(fields[stimeIdx], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("bad stime: %w", err)
	}
	return utime + stime, nil
}

// readProcessCPU returns the CPU time (user+system) process pid has used
// so far. Only the process itself is counted, not waited-for children.
func readProcessCPU(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	ticks, err := parseProcStatCPU(data)
	if err != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return ticksToDuration(ticks), nil
}

// parseMachineBusy returns the busy ticks of all CPUs together from the text
// of /proc/stat: everything but idle, iowait and steal. Steal is time the
// hypervisor gave to someone else, not work done on this machine; guest time
// is already included in user, so it is not added again.
func parseMachineBusy(data []byte) (uint64, error) {
	line, _, _ := bytes.Cut(data, []byte("\n"))
	fields := strings.Fields(string(line))
	if len(fields) < 9 || fields[0] != "cpu" {
		return 0, fmt.Errorf("first line of /proc/stat is not the aggregate cpu line: %q", line)
	}
	var v [8]uint64 // user nice system idle iowait irq softirq steal
	for i := range v {
		n, err := strconv.ParseUint(fields[i+1], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("bad cpu field %d: %w", i+1, err)
		}
		v[i] = n
	}
	user, nice, system, irq, softirq := v[0], v[1], v[2], v[5], v[6]
	return user + nice + system + irq + softirq, nil
}

// readMachineBusy returns the CPU time all CPUs of the machine have spent
// busy since boot.
func readMachineBusy() (time.Duration, error) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, err
	}
	ticks, err := parseMachineBusy(data)
	if err != nil {
		return 0, err
	}
	return ticksToDuration(ticks), nil
}

// parseMachineInfo describes the machine from the text of /proc/cpuinfo and
// /proc/meminfo, e.g. "2 CPUs (AMD EPYC), 23 GiB RAM", for the header: a
// figure means little without knowing what it ran on.
func parseMachineInfo(cpuinfo, meminfo []byte) string {
	var cpus int
	model := "unknown model"
	for line := range strings.Lines(string(cpuinfo)) {
		name, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(name) {
		case "processor":
			cpus++
		case "model name":
			model = strings.TrimSpace(val)
		}
	}
	desc := fmt.Sprintf("%d CPUs (%s)", cpus, model)
	for line := range strings.Lines(string(meminfo)) {
		fields := strings.Fields(line)
		if len(fields) == 3 && fields[0] == "MemTotal:" && fields[2] == "kB" {
			if kib, err := strconv.ParseInt(fields[1], 10, 64); err == nil {
				desc += fmt.Sprintf(", %d GiB RAM", (kib+512*1024)/(1024*1024))
			}
		}
	}
	return desc
}

// machineInfo describes this machine, or says why it cannot.
func machineInfo() string {
	cpuinfo, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	meminfo, _ := os.ReadFile("/proc/meminfo")
	return parseMachineInfo(cpuinfo, meminfo)
}
