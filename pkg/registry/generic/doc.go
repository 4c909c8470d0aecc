// Package generic holds the Store: the REST storage every resource is built
// from. A resource supplies its strategies (what may be set, how it is
// validated), its selectable fields and its key prefix; the Store does the
// rest: keys, metadata bookkeeping, optimistic concurrency, dry run,
// preconditions, finalizers and graceful deletion, and the mapping of
// storage errors to the API errors clients see.
package generic
