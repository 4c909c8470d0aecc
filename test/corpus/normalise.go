package corpus

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// normalise turns a case's raw answers into what is compared, replacing
// what two runs of the same case legitimately disagree on:
//
//   - the case's namespace, by NAMESPACE;
//   - every object's uid, wherever it appears (ownerReferences, labels
//     such as batch.kubernetes.io/controller-uid, a Status' details), by
//     <uid-N>, N counting the uids in the order the answers show them;
//   - names made from a generateName, by <generated-N>;
//   - the random end of the ServiceAccount admission plugin's token
//     volume, kube-api-access-xxxxx, by <random-N>, in the volume's name
//     and in its mounts;
//   - metadata.resourceVersion, by <rv>;
//   - any RFC 3339 time within an hour of the answer (creation and
//     deletion timestamps, managedFields, conditions the server sets), by
//     <now>; times the request chose are far from now and kept;
//   - the values at the case's ignored paths, by <ignored>.
func normalise(raw []rawResponse, ns string, ignore []Ignore) []Response {
	var replacements []string // old, new pairs for strings.Replacer
	if ns != "" {
		replacements = append(replacements, ns, "NAMESPACE")
	}
	uids, generated := map[string]bool{}, map[string]bool{}
	generate := func(prefix, name string) {
		if prefix != "" && strings.HasPrefix(name, prefix) && name != prefix && !generated[name] {
			generated[name] = true
			replacements = append(replacements, name, fmt.Sprintf("<generated-%d>", len(generated)))
		}
	}
	for _, r := range raw {
		if name, ok := lookup(r.body, "details.name").(string); ok {
			generate(r.generateName, name)
		}
		walkObjects(r.body, func(meta map[string]any) {
			if uid, ok := meta["uid"].(string); ok && uid != "" && !uids[uid] {
				uids[uid] = true
				replacements = append(replacements, uid, fmt.Sprintf("<uid-%d>", len(uids)))
			}
			name, _ := meta["name"].(string)
			prefix, _ := meta["generateName"].(string)
			generate(prefix, name)
		})
		walkVolumes(r.body, func(name string) {
			if strings.HasPrefix(name, tokenVolumePrefix) && !generated[name] {
				generated[name] = true
				replacements = append(replacements, name, fmt.Sprintf("%s<random-%d>", tokenVolumePrefix, len(generated)))
			}
		})
	}
	replacer := strings.NewReplacer(replacements...)

	out := make([]Response, len(raw))
	for i, r := range raw {
		n := normaliser{replacer: replacer, at: r.at}
		body := n.value(r.body)
		for _, ig := range ignore {
			setPath(body, ig.Path, "<ignored>")
		}
		var warnings []string
		for _, w := range r.warnings {
			warnings = append(warnings, replacer.Replace(w))
		}
		out[i] = Response{Code: r.code, Warnings: warnings, Body: body}
	}
	return out
}

// walkObjects calls visit with the metadata of every object in v, in a
// fixed order (map keys sorted), so that placeholders are numbered alike
// for two servers' answers of the same shape.
func walkObjects(v any, visit func(meta map[string]any)) {
	switch v := v.(type) {
	case map[string]any:
		if meta, ok := v["metadata"].(map[string]any); ok {
			visit(meta)
		}
		for _, k := range slices.Sorted(maps.Keys(v)) {
			walkObjects(v[k], visit)
		}
	case []any:
		for _, e := range v {
			walkObjects(e, visit)
		}
	}
}

// tokenVolumePrefix starts the name of the token volume the
// ServiceAccount admission plugin adds to pods, whose end is random.
const tokenVolumePrefix = "kube-api-access-"

// walkVolumes calls visit with the name of every volume in v (the
// volumes of pods and of pod templates), in a fixed order.
func walkVolumes(v any, visit func(name string)) {
	switch v := v.(type) {
	case map[string]any:
		if volumes, ok := v["volumes"].([]any); ok {
			for _, vol := range volumes {
				if m, ok := vol.(map[string]any); ok {
					if name, ok := m["name"].(string); ok {
						visit(name)
					}
				}
			}
		}
		for _, k := range slices.Sorted(maps.Keys(v)) {
			walkVolumes(v[k], visit)
		}
	case []any:
		for _, e := range v {
			walkVolumes(e, visit)
		}
	}
}

type normaliser struct {
	replacer *strings.Replacer
	at       time.Time
}

func (n normaliser) value(v any) any {
	switch v := v.(type) {
	case string:
		if t, err := time.Parse(time.RFC3339, v); err == nil && t.Sub(n.at).Abs() < time.Hour {
			return "<now>"
		}
		return n.replacer.Replace(v)
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[n.replacer.Replace(k)] = n.value(e)
		}
		if meta, ok := out["metadata"].(map[string]any); ok {
			if _, ok := meta["resourceVersion"]; ok {
				meta["resourceVersion"] = "<rv>"
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = n.value(e)
		}
		return out
	default:
		return v
	}
}

// setPath replaces the value at a dotted path of v, if there is one.
func setPath(v any, path string, value any) {
	parts := strings.Split(path, ".")
	parent := lookup(v, strings.Join(parts[:len(parts)-1], "."))
	if len(parts) == 1 {
		parent = v
	}
	last := parts[len(parts)-1]
	switch p := parent.(type) {
	case map[string]any:
		if _, ok := p[last]; ok {
			p[last] = value
		}
	case []any:
		var i int
		if _, err := fmt.Sscan(last, &i); err == nil && i >= 0 && i < len(p) {
			p[i] = value
		}
	}
}

// SortManagedFields orders every managedFields list in v by manager,
// operation, API version and subresource. Servers order the entries by
// the second each was written first, and two writes of a case fall in one
// second or in two as the machine's load has it: with the times made
// placeholders, that order says nothing, and is not compared.
func SortManagedFields(v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if list, ok := e.([]any); ok && k == "managedFields" {
				slices.SortStableFunc(list, func(a, b any) int {
					return strings.Compare(managedFieldsKey(a), managedFieldsKey(b))
				})
			}
			SortManagedFields(e)
		}
	case []any:
		for _, e := range v {
			SortManagedFields(e)
		}
	}
}

func managedFieldsKey(entry any) string {
	m, _ := entry.(map[string]any)
	var key []string
	for _, f := range []string{"manager", "operation", "apiVersion", "subresource"} {
		s, _ := m[f].(string)
		key = append(key, s)
	}
	return strings.Join(key, "\x00")
}
