package core

import (
	"regexp"
	"strings"

	v1 "k8s.io/api/core/v1"
)

// pullPolicyForImage is the default pull policy of an image reference:
// Always for a reference that names no tag and no digest, or the tag
// "latest" (the image behind it may change at any time), IfNotPresent
// otherwise. References that do not parse also get IfNotPresent; validation
// reports them if it cares.
func pullPolicyForImage(image string) v1.PullPolicy {
	if tag, ok := imageTag(image); ok && tag == "latest" {
		return v1.PullAlways
	}
	return v1.PullIfNotPresent
}

// The grammar of image references, as defined by the distribution
// project's reference package:
//
//	reference := name [ ":" tag ] [ "@" digest ]
//	name      := [ domain "/" ] path-component [ "/" path-component ]*
var (
	pathComponentRE = regexp.MustCompile(`^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$`)
	domainRE        = regexp.MustCompile(`^(?:(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])(?:\.(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))*|\[[a-fA-F0-9:]+\])(?::[0-9]+)?$`)
	tagRE           = regexp.MustCompile(`^[\w][\w.-]{0,127}$`)
	digestRE        = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}$`)
	// A bare 64-character hex string is an image ID, not a name.
	imageIDRE = regexp.MustCompile(`^[a-f0-9]{64}$`)
)

// digestHexLengths are the hex lengths of the digest algorithms a
// reference may use; other algorithms make the reference unparseable.
var digestHexLengths = map[string]int{"sha256": 64, "sha384": 96, "sha512": 128}

// maxImageNameLength bounds the normalised name (domain and path).
const maxImageNameLength = 255

// imageTag returns the tag an image reference resolves to: its explicit
// tag, "latest" when it names neither a tag nor a digest, and "" when it
// names only a digest. ok is false when the reference does not parse.
func imageTag(image string) (tag string, ok bool) {
	if imageIDRE.MatchString(image) {
		return "", false
	}
	rest, digest, hasDigest := strings.Cut(image, "@")
	if hasDigest && !validDigest(digest) {
		return "", false
	}
	name := rest
	// A tag follows the last colon that is not part of the domain's port,
	// i.e. one that comes after the last slash.
	if i := strings.LastIndexByte(rest, ':'); i > strings.LastIndexByte(rest, '/') {
		name, tag = rest[:i], rest[i+1:]
		if !tagRE.MatchString(tag) {
			return "", false
		}
	}
	normalized, valid := normalizeImageName(name)
	if !valid || len(normalized) > maxImageNameLength {
		return "", false
	}
	if tag == "" && !hasDigest {
		tag = "latest"
	}
	return tag, true
}

// normalizeImageName validates a name and returns it with the implied
// domain and "library/" prefix of Docker Hub, whose length is what the
// reference grammar limits.
func normalizeImageName(name string) (string, bool) {
	domain, path := "docker.io", name
	if first, remainder, found := strings.Cut(name, "/"); found && isDomain(first) {
		domain, path = first, remainder
	} else if !strings.Contains(name, "/") {
		path = "library/" + name
	}
	if !domainRE.MatchString(domain) {
		return "", false
	}
	for _, component := range strings.Split(path, "/") {
		if !pathComponentRE.MatchString(component) {
			return "", false
		}
	}
	return domain + "/" + path, true
}

// isDomain reports whether the first component of a name is a registry
// host rather than the first path component: hosts have a dot or a port,
// are "localhost", or contain upper-case letters (never valid in a path).
func isDomain(component string) bool {
	return strings.ContainsAny(component, ".:") || component == "localhost" || strings.ToLower(component) != component
}

func validDigest(digest string) bool {
	if !digestRE.MatchString(digest) {
		return false
	}
	algorithm, hex, _ := strings.Cut(digest, ":")
	length, known := digestHexLengths[algorithm]
	return known && len(hex) == length && strings.ToLower(hex) == hex
}
