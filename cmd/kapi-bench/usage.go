package main

import (
	"time"
)

// sample is the CPU time used so far by the bench itself, the server, etcd
// (when it is a separate process) and the whole machine. Two samples around
// a run tell who used the two shared cores during it; a figure that could
// not be read is marked missing rather than taken as zero.
type sample struct {
	client, server, etcd, machine             time.Duration
	haveClient, haveServer, haveEtcd, haveAll bool
}

func takeSample(serverPID, etcdPID int) sample {
	var s sample
	var err error
	s.client, err = selfCPU()
	s.haveClient = err == nil
	if serverPID > 0 {
		s.server, err = readProcessCPU(serverPID)
		s.haveServer = err == nil
	}
	if etcdPID > 0 {
		s.etcd, err = readProcessCPU(etcdPID)
		s.haveEtcd = err == nil
	}
	s.machine, err = readMachineBusy()
	s.haveAll = err == nil
	return s
}

// recordUsage adds the CPU used between before and after, and the current
// memory of the server and etcd, under the baseline's key names.
// other_cpu_s is what the machine spent beyond the bench, server and etcd:
// other processes on the same cores, i.e. how noisy the run was. The
// counters tick every 10ms per process, so on a short run it can be a few
// ticks below zero; it is printed as measured.
func recordUsage(r *result, p *printer, before, after sample, serverPID, etcdPID int) {
	client := after.client - before.client
	server := after.server - before.server
	etcd := after.etcd - before.etcd
	machine := after.machine - before.machine
	if before.haveClient && after.haveClient {
		r.addDuration("client_cpu_s", client)
	}
	if serverPID > 0 && before.haveServer && after.haveServer {
		r.addDuration("server_cpu_s", server)
	}
	if etcdPID > 0 && before.haveEtcd && after.haveEtcd {
		r.addDuration("etcd_cpu_s", etcd)
	}
	if before.haveAll && after.haveAll {
		r.addDuration("machine_busy_cpu_s", machine)
		// Without the server's figure the remainder would mostly be the
		// server, which is not what "other" means.
		if serverPID > 0 && before.haveServer && after.haveServer && before.haveClient && after.haveClient &&
			(etcdPID <= 0 || (before.haveEtcd && after.haveEtcd)) {
			r.addDuration("other_cpu_s", machine-client-server-etcd)
		}
	}
	for _, proc := range []struct {
		name string
		pid  int
	}{{"server", serverPID}, {"etcd", etcdPID}} {
		if proc.pid <= 0 {
			continue
		}
		m, err := readMemory(proc.pid)
		if err != nil {
			p.comment("%s memory: %v", proc.name, err)
			continue
		}
		r.addFloat(proc.name+"_rss_mib", kibToMiB(m.rssKiB))
		r.addFloat(proc.name+"_hwm_mib", kibToMiB(m.hwmKiB))
	}
}
