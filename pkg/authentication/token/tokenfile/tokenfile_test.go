package tokenfile

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
)

func writeFile(t *testing.T, contents string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tokens.csv")
	if err := os.WriteFile(path, []byte(contents), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestNewCSVReadsRecords(t *testing.T) {
	var logged bytes.Buffer
	a, err := NewCSV(writeFile(t, `
token1,user1,uid1
token2,user2,uid2,"group1,group2"
token3,user3,uid3,group3

token4,user4,uid4,"group4",ignored,"also ignored"
token5,user5,uid5,
,nobody,uid6
token7,first,uid7
token7,second,uid7b
`), slog.New(slog.NewTextHandler(&logged, nil)))
	if err != nil {
		t.Fatalf("NewCSV: %v", err)
	}
	// The skipped and the overridden record are reported to the logger
	// the caller gave, by record number (blank lines are not records).
	for _, want := range []string{`msg="Empty token in token file, record skipped"`, "record=6", `msg="Duplicate token in token file, the later record wins"`, "record=8"} {
		if !strings.Contains(logged.String(), want) {
			t.Errorf("log %q lacks %s", logged.String(), want)
		}
	}

	tests := []struct {
		token string
		want  *user.DefaultInfo // nil: not authenticated
	}{
		{"token1", &user.DefaultInfo{Name: "user1", UID: "uid1"}},
		{"token2", &user.DefaultInfo{Name: "user2", UID: "uid2", Groups: []string{"group1", "group2"}}},
		{"token3", &user.DefaultInfo{Name: "user3", UID: "uid3", Groups: []string{"group3"}}},
		{"token4", &user.DefaultInfo{Name: "user4", UID: "uid4", Groups: []string{"group4"}}},
		// kube-apiserver splits an empty 4th field into one empty group.
		{"token5", &user.DefaultInfo{Name: "user5", UID: "uid5", Groups: []string{""}}},
		{"token7", &user.DefaultInfo{Name: "second", UID: "uid7b"}},
		// The empty-token record is skipped, so an empty token matches nothing.
		{"", nil},
		{"unknown", nil},
		{"TOKEN1", nil},
	}
	for _, tt := range tests {
		t.Run(tt.token, func(t *testing.T) {
			resp, ok, err := a.AuthenticateToken(context.Background(), tt.token)
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if tt.want == nil {
				if ok || resp != nil {
					t.Errorf("authenticated as %v, want not authenticated", resp.User)
				}
				return
			}
			if !ok || !reflect.DeepEqual(resp.User, tt.want) {
				t.Errorf("got ok=%v user=%#v, want %#v", ok, resp, tt.want)
			}
		})
	}
}

func TestNewCSVRejectsMalformedFiles(t *testing.T) {
	tests := []struct {
		name, contents, wantErr string
	}{
		{
			name:     "too few columns",
			contents: "token1,user1,uid1\ntoken2,user2\n",
			wantErr:  "must have at least 3 columns (token, user name, user uid), found 2 in record 2",
		},
		{
			name:     "token only",
			contents: "token4\n",
			wantErr:  "found 1",
		},
		{
			name:     "comment lines are records",
			contents: "# tokens for CI\ntoken1,user1,uid1\n",
			wantErr:  "found 1",
		},
		{
			name:     "invalid CSV",
			contents: "token1,user1,\"uid1\n",
			wantErr:  "extraneous or missing \" in quoted-field",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, tt.contents)
			_, err := NewCSV(path, nil)
			if err == nil {
				t.Fatal("NewCSV succeeded, want error")
			}
			if !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), path) {
				t.Errorf("error %q should name the file and contain %q", err, tt.wantErr)
			}
		})
	}
}

func TestNewCSVMissingFile(t *testing.T) {
	if _, err := NewCSV(filepath.Join(t.TempDir(), "absent.csv"), nil); !os.IsNotExist(err) {
		t.Errorf("err = %v, want a not-exist error", err)
	}
}

func TestEmptyFileAuthenticatesNobody(t *testing.T) {
	a, err := NewCSV(writeFile(t, "\n\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := a.AuthenticateToken(context.Background(), ""); ok {
		t.Error("empty token authenticated")
	}
}

func TestCallersCannotChangeTheTable(t *testing.T) {
	a := New(map[string]*user.DefaultInfo{"t": {Name: "alice"}})
	resp, _, _ := a.AuthenticateToken(context.Background(), "t")
	resp.User.(*user.DefaultInfo).Name = "mallory"

	resp, _, _ = a.AuthenticateToken(context.Background(), "t")
	if got := resp.User.GetName(); got != "alice" {
		t.Errorf("name = %q after a caller modified an earlier response", got)
	}
}
