package main

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/internal/required"
)

const statusText = `Name:	kapi
Umask:	0022
State:	S (sleeping)
Pid:	4121
VmPeak:	 2011476 kB
VmSize:	 2011476 kB
VmHWM:	  406224 kB
VmRSS:	  396700 kB
RssAnon:	  350000 kB
Threads:	23
`

func TestParseProcStatus(t *testing.T) {
	m, err := parseProcStatus(strings.NewReader(statusText))
	if err != nil {
		t.Fatal(err)
	}
	if m.rssKiB != 396700 || m.hwmKiB != 406224 || m.anonKiB != 350000 {
		t.Errorf("got %+v, want rss 396700 hwm 406224 anon 350000", m)
	}
	if got := kibToMiB(m.rssKiB); got < 387.4 || got > 387.5 {
		t.Errorf("kibToMiB = %v, want ~387.4", got)
	}

	for name, text := range map[string]string{
		"kernel thread": "Name:\tkthreadd\nState:\tS (sleeping)\n",
		"bad number":    "VmHWM:\t 1x kB\nVmRSS:\t 1 kB\n",
		"bad unit":      "VmHWM:\t 1 kB\nVmRSS:\t 1 MB\n",
	} {
		if _, err := parseProcStatus(strings.NewReader(text)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestParseProcStatCPU(t *testing.T) {
	tests := []struct {
		name string
		line string
		want uint64
	}{
		{"plain", "1765 (cat) R 1762 1762 8017 0 -1 4194304 100 0 0 0 17 4 0 0 20 0 1 0 797922 3133440 387", 21},
		// A command name may contain spaces and parentheses.
		{"odd name", "42 (my (odd) name) S 1 42 42 0 -1 4194560 5 0 0 0 1234 567 0 0 20 0 9 0 100 2000 300", 1801},
	}
	for _, tt := range tests {
		got, err := parseProcStatCPU([]byte(tt.line))
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if got != tt.want {
			t.Errorf("%s: got %d ticks, want %d", tt.name, got, tt.want)
		}
	}
	for _, bad := range []string{"", "1 (x) R 1 2 3", "1 (x) R 1 1 1 0 -1 0 0 0 0 0 u 4 0"} {
		if _, err := parseProcStatCPU([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if got := ticksToDuration(4032); got != 40320*time.Millisecond {
		t.Errorf("ticksToDuration(4032) = %v, want 40.32s", got)
	}
}

func TestParseMachineBusy(t *testing.T) {
	// user nice system idle iowait irq softirq steal guest guest_nice
	data := "cpu  137796 5 46216 1403163 2168 10 779 159 0 0\ncpu0 66509 0 21497 706485 557 0 142 71 0 0\n"
	got, err := parseMachineBusy([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if want := uint64(137796 + 5 + 46216 + 10 + 779); got != want {
		t.Errorf("busy = %d, want %d (idle, iowait and steal excluded)", got, want)
	}
	for _, bad := range []string{"", "cpu0 1 2 3 4 5 6 7 8\n", "cpu 1 2 3\n", "cpu 1 2 x 4 5 6 7 8\n"} {
		if _, err := parseMachineBusy([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestParseMachineInfo(t *testing.T) {
	cpuinfo := "processor\t: 0\nmodel name\t: AMD EPYC\n\nprocessor\t: 1\nmodel name\t: AMD EPYC\n"
	meminfo := "MemTotal:       24684092 kB\nMemFree:         1000 kB\n"
	if got, want := parseMachineInfo([]byte(cpuinfo), []byte(meminfo)), "2 CPUs (AMD EPYC), 24 GiB RAM"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := parseMachineInfo(nil, nil), "0 CPUs (unknown model)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// The parsers must agree with the real files of this process.
func TestReadOwnProcess(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		required.Missing(t, "/proc (kapi-bench measures servers through it, on Linux)", err)
	}
	pid := os.Getpid()
	m, err := readMemory(pid)
	if err != nil {
		t.Fatal(err)
	}
	if m.rssKiB <= 0 || m.hwmKiB < m.rssKiB {
		t.Errorf("implausible memory %+v", m)
	}
	if _, err := readProcessCPU(pid); err != nil {
		t.Error(err)
	}
	if busy, err := readMachineBusy(); err != nil || busy <= 0 {
		t.Errorf("machine busy = %v, %v", busy, err)
	}
}
