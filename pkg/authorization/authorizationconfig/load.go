package authorizationconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// versions are the versions of the file kapi reads; kube-apiserver 1.37
// serves all three with the same fields.
var versions = map[string]bool{"v1": true, "v1beta1": true, "v1alpha1": true}

// LoadFile reads, decodes and defaults the file at path. It does not
// validate: see Validate.
func LoadFile(path string) (*AuthorizationConfiguration, []byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("failed to read authorization config file %q: %w", path, err)
	}
	c, err := Decode(data)
	return c, data, err
}

// Decode decodes a file's content, YAML or JSON, strictly, and applies
// the defaults. Its errors read as kube-apiserver's.
func Decode(data []byte) (*AuthorizationConfiguration, error) {
	c, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("failed to load AuthorizationConfiguration from file: %w", err)
	}
	for i := range c.Authorizers {
		if w := c.Authorizers[i].Webhook; w != nil {
			setWebhookDefaults(w)
		}
	}
	return c, nil
}

func decode(data []byte) (*AuthorizationConfiguration, error) {
	js := data
	// A document that starts like JSON is read as JSON, as
	// kube-apiserver's decoder does; anything else goes through YAML.
	if t := bytes.TrimSpace(data); len(t) == 0 || t[0] != '{' {
		var err error
		if js, err = yaml.YAMLToJSON(data); err != nil {
			return nil, err
		}
	}
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := json.Unmarshal(js, &head); err != nil {
		return nil, fmt.Errorf("couldn't get version/kind; json parse error: %w", jsonCause(err))
	}
	switch {
	case head.Kind == "":
		return nil, fmt.Errorf("Object 'Kind' is missing in '%s'", data)
	case head.APIVersion == "":
		return nil, fmt.Errorf("Object 'apiVersion' is missing in '%s'", data)
	}
	gv, err := schema.ParseGroupVersion(head.APIVersion)
	if err != nil {
		return nil, err
	}
	if gv.Group != Group || !versions[gv.Version] || head.Kind != Kind {
		return nil, fmt.Errorf("no kind %q is registered for version %q in scheme", head.Kind, head.APIVersion)
	}
	c := &AuthorizationConfiguration{}
	strictErrs, err := kjson.UnmarshalStrict(js, c)
	if err != nil {
		return nil, err
	}
	if len(strictErrs) > 0 {
		msgs := make([]string, len(strictErrs))
		for i, e := range strictErrs {
			msgs[i] = e.Error()
		}
		return nil, errors.New("strict decoding error: " + strings.Join(msgs, ", "))
	}
	return c, nil
}

// jsonCause strips encoding/json's wrapping to the syntax error's own
// words.
func jsonCause(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return errors.New(se.Error())
	}
	return err
}

// setWebhookDefaults applies v1's defaults: answers are cached, allowed
// ones for 5 minutes and others for 30 seconds.
func setWebhookDefaults(w *WebhookConfiguration) {
	if w.AuthorizedTTL.Duration == 0 {
		w.AuthorizedTTL.Duration = 5 * time.Minute
	}
	if w.CacheAuthorizedRequests == nil {
		t := true
		w.CacheAuthorizedRequests = &t
	}
	if w.UnauthorizedTTL.Duration == 0 {
		w.UnauthorizedTTL.Duration = 30 * time.Second
	}
	if w.CacheUnauthorizedRequests == nil {
		t := true
		w.CacheUnauthorizedRequests = &t
	}
}

// LoadAndValidate reads the file at path, decodes, defaults and
// validates it, and compiles its match conditions. data is the file's
// content, so that a reloader can tell whether it changed.
//
// Beyond Validate, two rules of kube-apiserver's own: an authorizer other
// than a webhook is named after its type in lower case ("rbac"), and a
// reloaded file keeps every non-webhook type the server started with
// (required), since those are built once at start-up.
func LoadAndValidate(path string, required []string) (c *AuthorizationConfiguration, matchers map[int]*Matcher, data []byte, err error) {
	c, data, err = LoadFile(path)
	if err != nil {
		return nil, nil, data, err
	}
	matchers, errs := Validate(c)
	if len(errs) > 0 {
		return nil, nil, data, errors.New(errs.ToAggregate().Error())
	}
	var more []error
	seen := map[string]bool{}
	for _, a := range c.Authorizers {
		if a.Type == TypeWebhook {
			continue
		}
		seen[a.Type] = true
		if want := strings.ToLower(a.Type); a.Name != want {
			more = append(more, fmt.Errorf("expected name %s for authorizer %s instead of %s", want, a.Type, a.Name))
		}
	}
	var missing []string
	for _, t := range required {
		if !seen[t] {
			missing = append(missing, t)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		more = append(more, fmt.Errorf("missing required types: %v", missing))
	}
	if len(more) > 0 {
		return nil, nil, data, utilerrors.NewAggregate(more)
	}
	return c, matchers, data, nil
}

// NonWebhookTypes are the types of c other than Webhook: what a reload
// must keep.
func NonWebhookTypes(c *AuthorizationConfiguration) []string {
	var out []string
	for _, a := range c.Authorizers {
		if a.Type != TypeWebhook {
			out = append(out, a.Type)
		}
	}
	return out
}
