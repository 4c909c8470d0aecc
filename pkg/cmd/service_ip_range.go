package cmd

import (
	"fmt"
	"net"
	"strings"
)

// parseServiceClusterIPRanges reads --service-cluster-ip-range as
// kube-apiserver does: one CIDR, or two of different IP families
// separated by a comma (the primary family first) for a dual-stack
// cluster. The errors are kube-apiserver's, which reads the first two
// entries before it checks how many there are: a malformed one of those
// is the only error it reports.
func parseServiceClusterIPRanges(value string) ([]*net.IPNet, []error) {
	entries := strings.Split(value, ",")
	var ranges []*net.IPNet
	for i, entry := range entries[:min(len(entries), 2)] {
		_, cidr, err := net.ParseCIDR(entry)
		if err != nil {
			if i == 0 {
				return nil, []error{fmt.Errorf("service-cluster-ip-range[0] is not a valid cidr")}
			}
			return nil, []error{fmt.Errorf("service-cluster-ip-range[1] is not an ip net")}
		}
		ranges = append(ranges, cidr)
	}
	var errs []error
	if len(entries) > 2 {
		errs = append(errs, fmt.Errorf("--service-cluster-ip-range must not contain more than two entries"))
	}
	if len(ranges) == 2 && (ranges[0].IP.To4() == nil) == (ranges[1].IP.To4() == nil) {
		errs = append(errs, fmt.Errorf("--service-cluster-ip-range[0] and --service-cluster-ip-range[1] must be of different IP family"))
	}
	return ranges, errs
}
