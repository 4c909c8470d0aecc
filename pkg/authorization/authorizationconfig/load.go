package authorizationconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
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
func LoadAndValidate(path string) (c *AuthorizationConfiguration, matchers map[int]*Matcher, data []byte, err error) {
	c, data, err = LoadFile(path)
	if err != nil {
		return nil, nil, data, err
	}
	matchers, errs := Validate(c)
	if len(errs) > 0 {
		return nil, nil, data, errs.ToAggregate()
	}
	return c, matchers, data, nil
}
