// Package version says which build of kapi is running and which
// Kubernetes API it serves, as /version reports it.
//
// The Kubernetes fields (major, minor, gitVersion) name the API kapi is
// compatible with. The build fields come from what the Go toolchain
// recorded in the binary: gitCommit is the VCS revision, gitTreeState is
// "dirty" when the work tree had changes and "clean" otherwise, and
// buildDate is the commit's time, as kube-apiserver's release builds
// report theirs (its builds stamp them with -ldflags; Go records them
// itself). A binary built without VCS information (go run, go test, or
// -buildvcs=false) reports them empty, with kube-apiserver's default
// buildDate.
package version

import (
	"encoding/json"
	"net/http"
	"runtime"
	"runtime/debug"

	apiversion "k8s.io/apimachinery/pkg/version"
)

// Kubernetes is the version of the Kubernetes API kapi serves, and the
// oldest it is compatible with.
var kubernetes = apiversion.Info{
	Major:                 "1",
	Minor:                 "37",
	GitVersion:            "v1.37.2-kapi",
	EmulationMajor:        "1",
	EmulationMinor:        "37",
	MinCompatibilityMajor: "1",
	MinCompatibilityMinor: "36",
}

// unknownBuildDate is kube-apiserver's buildDate when a build is not
// stamped.
const unknownBuildDate = "1970-01-01T00:00:00Z"

// Get returns the version of the running binary.
func Get() apiversion.Info {
	bi, _ := debug.ReadBuildInfo()
	return fromBuild(bi)
}

// EmulationVersion is the Kubernetes version kapi's API emulates, major
// and minor ("1.37"): kube-apiserver's OpenAPI documents give it as their
// info.version.
func EmulationVersion() string { return kubernetes.EmulationMajor + "." + kubernetes.EmulationMinor }

// fromBuild fills the version from a binary's build information (nil
// when there is none).
func fromBuild(bi *debug.BuildInfo) apiversion.Info {
	info := kubernetes
	info.GoVersion, info.Compiler, info.Platform = runtime.Version(), runtime.Compiler, runtime.GOOS+"/"+runtime.GOARCH
	info.BuildDate = unknownBuildDate
	if bi == nil {
		return info
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			info.GitCommit = s.Value
		case "vcs.time":
			info.BuildDate = s.Value
		case "vcs.modified":
			info.GitTreeState = "clean"
			if s.Value == "true" {
				info.GitTreeState = "dirty"
			}
		}
	}
	return info
}

// Handler serves /version: the version as indented JSON, as
// kube-apiserver answers it.
func Handler() http.Handler {
	body, _ := json.MarshalIndent(Get(), "", "  ")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	})
}
