package registry

import (
	"fmt"

	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// Resource is the shape every resource package's Storage has: the storage
// of the resource and of its subresources, by the path they are served
// at ("pods", "pods/status", "pods/binding").
type Resource interface {
	Map() map[string]rest.Storage
}

// StorageProvider declares one built-in API group. A provider that needs
// more than RESTOptions (the core group's service ranges) holds it in
// fields set by whoever makes the provider.
type StorageProvider interface {
	// GroupName is the group, "" for the core group.
	GroupName() string
	// GroupPriority places the group in discovery, higher first; the
	// values are kube-apiserver's.
	GroupPriority() int
	// NewRESTStorage builds the storage of the group's versions that
	// served allows, by version and path. Versions it leaves out are not
	// served; storage served by no version is not built.
	NewRESTStorage(opts generic.RESTOptions, served func(version string) bool) (VersionedStorage, error)
}

// VersionedStorage is the storage of a group by version ("v1") and path
// ("pods", "pods/status").
type VersionedStorage map[string]map[string]rest.Storage

// GroupStorage collects the storage of one group's versions as a provider
// builds it, one resource at a time, and keeps the first error, so that a
// provider adds a resource with one line:
//
//	v1 := g.Version("v1")
//	v1.Add(deployment.NewStorage(opts))
//
// Its zero value is ready to use.
type GroupStorage struct {
	versions VersionedStorage
	err      error
}

// Version returns the collector of one version's storage.
func (g *GroupStorage) Version(version string) Version {
	return Version{group: g, version: version}
}

// Version collects the storage of one version of a group.
type Version struct {
	group   *GroupStorage
	version string
}

// Add serves r, built with err, in the version, at the paths r.Map()
// names. After an error the storage built so far, r included, is
// released by GroupStorage.Result.
func (v Version) Add(r Resource, err error) {
	g := v.group
	if err != nil {
		if g.err == nil {
			g.err = fmt.Errorf("%s: %w", v.version, err)
		}
		return
	}
	if g.err != nil {
		destroy(r.Map())
		return
	}
	if g.versions == nil {
		g.versions = VersionedStorage{}
	}
	paths := g.versions[v.version]
	if paths == nil {
		paths = map[string]rest.Storage{}
		g.versions[v.version] = paths
	}
	for path, s := range r.Map() {
		if _, dup := paths[path]; dup {
			g.err = fmt.Errorf("%s: %s is declared twice", v.version, path)
			destroy(r.Map())
			return
		}
		paths[path] = s
	}
}

// Result returns the storage by version and path, or the first error
// after releasing what was built.
func (g *GroupStorage) Result() (VersionedStorage, error) {
	if g.err != nil {
		all := map[string]rest.Storage{}
		for version, paths := range g.versions {
			for path, s := range paths {
				all[version+"/"+path] = s
			}
		}
		destroy(all)
		return nil, g.err
	}
	return g.versions, nil
}

// destroy releases the storage of paths; subresources share their
// resource's, so each storage is released once.
func destroy(paths map[string]rest.Storage) {
	done := map[rest.Storage]bool{}
	for _, s := range paths {
		if s != nil && !done[s] {
			done[s] = true
			s.Destroy()
		}
	}
}
