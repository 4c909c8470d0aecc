package version

import (
	"runtime/debug"
	"testing"
)

func TestBuildFieldsComeFromTheBinarysVCSInformation(t *testing.T) {
	tests := []struct {
		name     string
		settings []debug.BuildSetting
		commit   string
		state    string
		date     string
	}{
		{"clean tree", []debug.BuildSetting{
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
			{Key: "vcs.time", Value: "2026-11-25T10:00:00Z"},
			{Key: "vcs.modified", Value: "false"},
		}, "0123456789abcdef0123456789abcdef01234567", "clean", "2026-11-25T10:00:00Z"},
		{"dirty tree", []debug.BuildSetting{
			{Key: "vcs.revision", Value: "fedcba9876543210fedcba9876543210fedcba98"},
			{Key: "vcs.time", Value: "2026-11-24T09:30:00Z"},
			{Key: "vcs.modified", Value: "true"},
		}, "fedcba9876543210fedcba9876543210fedcba98", "dirty", "2026-11-24T09:30:00Z"},
		// go test and -buildvcs=false record no VCS settings.
		{"no VCS information", nil, "", "", "1970-01-01T00:00:00Z"},
	}
	for _, tt := range tests {
		info := fromBuild(&debug.BuildInfo{Settings: tt.settings})
		if info.GitCommit != tt.commit || info.GitTreeState != tt.state || info.BuildDate != tt.date {
			t.Errorf("%s: got commit %q state %q date %q, want %q %q %q", tt.name,
				info.GitCommit, info.GitTreeState, info.BuildDate, tt.commit, tt.state, tt.date)
		}
		if info.Major != "1" || info.Minor != "37" || info.GoVersion == "" || info.Platform == "" {
			t.Errorf("%s: Kubernetes and Go fields missing: %+v", tt.name, info)
		}
	}
	if info := fromBuild(nil); info.BuildDate != "1970-01-01T00:00:00Z" || info.GitCommit != "" {
		t.Errorf("without build information: %+v", info)
	}
}
