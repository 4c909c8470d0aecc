// Package tokenfile authenticates static bearer tokens listed in a CSV file,
// the format of kube-apiserver's --token-auth-file.
//
// Each record is
//
//	token,user name,user uid[,"group1,group2,..."[,ignored...]]
//
// The file is read once; kube-apiserver does not reload it either.
package tokenfile

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/kapi-dev/kapi/pkg/authentication/authenticator"
	"github.com/kapi-dev/kapi/pkg/authentication/user"
)

// TokenAuthenticator maps static tokens to users.
type TokenAuthenticator struct {
	tokens map[string]*user.DefaultInfo
}

// New returns an authenticator for the given tokens. The map is used as is
// and must not be modified afterwards.
func New(tokens map[string]*user.DefaultInfo) *TokenAuthenticator {
	return &TokenAuthenticator{tokens: tokens}
}

// NewCSV reads the token file at path.
//
// It accepts exactly what kube-apiserver accepts, so that an existing file
// keeps working:
//   - blank lines are skipped (by encoding/csv);
//   - a record with fewer than 3 fields, or a line that is not valid CSV,
//     fails the whole file: a half-read token file is worse than none;
//   - a record with an empty token is skipped with a warning;
//   - when a token appears twice, the later record wins, with a warning;
//   - the 4th field is split on "," into groups, as is: an empty 4th field
//     yields the single group "". Fields after the 4th are ignored.
//
// There is no comment syntax: a "#" line is an ordinary record.
//
// The warnings go to log; nil discards them.
func NewCSV(path string, log *slog.Logger) (*TokenAuthenticator, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()

	r := csv.NewReader(f)
	r.FieldsPerRecord = -1 // records may have 3, 4 or more fields
	r.ReuseRecord = true

	tokens := map[string]*user.DefaultInfo{}
	for recordNum := 1; ; recordNum++ {
		record, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("token file %q: %w", path, err)
		}
		if len(record) < 3 {
			return nil, fmt.Errorf("token file %q must have at least 3 columns (token, user name, user uid), found %d in record %d", path, len(record), recordNum)
		}
		token := record[0]
		if token == "" {
			log.Warn("Empty token in token file, record skipped", "file", path, "record", recordNum)
			continue
		}
		if _, dup := tokens[token]; dup {
			log.Warn("Duplicate token in token file, the later record wins", "file", path, "record", recordNum)
		}
		info := &user.DefaultInfo{Name: record[1], UID: record[2]}
		if len(record) >= 4 {
			info.Groups = strings.Split(record[3], ",")
		}
		tokens[token] = info
	}
	return New(tokens), nil
}

// AuthenticateToken implements authenticator.Token. An unknown token is not
// an error here: the caller decides what an unaccepted token means.
func (a *TokenAuthenticator) AuthenticateToken(ctx context.Context, token string) (*authenticator.Response, bool, error) {
	info, ok := a.tokens[token]
	if !ok {
		return nil, false, nil
	}
	// Hand out a copy so that no caller can change the table.
	u := *info
	return &authenticator.Response{User: &u}, true, nil
}
