package cmd

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// TestServiceClusterIPRangeErrors: a bad --service-cluster-ip-range
// stops kapi with kube-apiserver 1.37.1's start-up error
// (testdata/kube-apiserver-service-cluster-ip-range.txt, recorded from
// it), several errors printed as kube-apiserver's aggregate of them.
func TestServiceClusterIPRangeErrors(t *testing.T) {
	f, err := os.Open("testdata/kube-apiserver-service-cluster-ip-range.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cases := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		value, want, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("malformed line %q", line)
		}
		cases++
		t.Run(value, func(t *testing.T) {
			_, errs := parseServiceClusterIPRanges(value)
			var msgs []string
			for _, err := range errs {
				msgs = append(msgs, err.Error())
			}
			got := strings.Join(msgs, ", ")
			if len(msgs) > 1 {
				got = "[" + got + "]"
			}
			if got != want {
				t.Errorf("kapi: %q\nkube-apiserver: %q", got, want)
			}
		})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cases == 0 {
		t.Fatal("no recorded values")
	}
}

// TestDualStackServiceClusterIPRange: two ranges of different families
// configure a dual-stack cluster, the first being the primary family.
func TestDualStackServiceClusterIPRange(t *testing.T) {
	o := NewOptions()
	o.ServiceClusterIPRange = "fd00:10:96::/112,10.0.0.0/24"
	o.DataDir = t.TempDir()
	c, err := o.Complete(nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.ServiceClusterIPRange.String() != "fd00:10:96::/112" || c.SecondaryServiceClusterIPRange == nil || c.SecondaryServiceClusterIPRange.String() != "10.0.0.0/24" {
		t.Errorf("ranges %v and %v, want fd00:10:96::/112 then 10.0.0.0/24", c.ServiceClusterIPRange, c.SecondaryServiceClusterIPRange)
	}
}
