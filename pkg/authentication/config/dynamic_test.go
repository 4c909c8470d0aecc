package config

import (
	"errors"
	"log/slog"
	"net/http/httptest"
	"os"
	"testing"
)

const header = "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\n"

func anonymousAt(d *Dynamic, path string) bool {
	_, ok, _ := d.Anonymous().AuthenticateRequest(httptest.NewRequest("GET", path, nil))
	return ok
}

func TestReloadReplacesAValidConfigurationAndKeepsTheOldOnAnInvalidOne(t *testing.T) {
	path := write(t, header+"anonymous:\n  enabled: true\n  conditions: [{path: /livez}]\n")
	d, err := NewDynamic(path, true, false, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if !anonymousAt(d, "/livez") || anonymousAt(d, "/api") {
		t.Fatal("the conditions are not in force")
	}
	os.WriteFile(path, []byte(header+"anonymous:\n  enabled: false\n"), 0o600)
	if err := d.Reload(); err != nil {
		t.Fatal(err)
	}
	if anonymousAt(d, "/livez") {
		t.Fatal("anonymous is still on after the file turned it off")
	}
	os.WriteFile(path, []byte(header+"anonymous:\n  enabled: true\n  bogus: 1\n"), 0o600)
	if err := d.Reload(); err == nil {
		t.Fatal("an invalid file was accepted")
	}
	if anonymousAt(d, "/livez") {
		t.Fatal("an invalid file changed the configuration in force")
	}
	// Without an anonymous section, --anonymous-auth decides.
	os.WriteFile(path, []byte(header), 0o600)
	if err := d.Reload(); err != nil {
		t.Fatal(err)
	}
	if !anonymousAt(d, "/api") {
		t.Error("--anonymous-auth=true is not in force without an anonymous section")
	}
}

// Recorded in conflict-anonymous.txt.
func TestAnonymousFlagConflictsWithTheSection(t *testing.T) {
	path := write(t, header+"anonymous:\n  enabled: true\n")
	_, err := NewDynamic(path, true, true, slog.New(slog.DiscardHandler))
	if !errors.Is(err, ErrAnonymousFlagConflict) || err.Error() != recordedError(t, "conflict-anonymous.txt") {
		t.Errorf("got %v, want %s", err, recordedError(t, "conflict-anonymous.txt"))
	}
}
