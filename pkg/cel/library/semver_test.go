package library

import "testing"

func TestParseSemver(t *testing.T) {
	tests := []struct {
		in      string
		want    string
		wantErr string
	}{
		{in: "1.2.3", want: "1.2.3"},
		{in: "1.2.3-rc.1+build.5", want: "1.2.3-rc.1+build.5"},
		{in: "0.0.0-0", want: "0.0.0-0"},
		{in: "", wantErr: "Version string empty"},
		{in: "1.2", wantErr: "No Major.Minor.Patch elements found"},
		{in: "01.2.3", wantErr: `Major number must not contain leading zeroes "01"`},
		{in: "1.02.3", wantErr: `Minor number must not contain leading zeroes "02"`},
		{in: "1.2.03", wantErr: `Patch number must not contain leading zeroes "03"`},
		{in: "1.2.x", wantErr: `Invalid character(s) found in patch number "x"`},
		{in: "1.2.3-01", wantErr: `Numeric PreRelease version must not contain leading zeroes "01"`},
		{in: "1.2.3-a..b", wantErr: "Prerelease is empty"},
		{in: "1.2.3-α", wantErr: `Invalid character(s) found in prerelease "α"`},
		{in: "1.2.3+", wantErr: "Build meta data is empty"},
		{in: "1.2.3+a_b", wantErr: `Invalid character(s) found in build meta data "a_b"`},
		{in: "99999999999999999999.1.1", wantErr: `strconv.ParseUint: parsing "99999999999999999999": value out of range`},
	}
	for _, tt := range tests {
		v, err := ParseSemver(tt.in)
		switch {
		case tt.wantErr != "":
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("ParseSemver(%q): error %v, want %q", tt.in, err, tt.wantErr)
			}
		case err != nil:
			t.Errorf("ParseSemver(%q): %v", tt.in, err)
		case v.String() != tt.want:
			t.Errorf("ParseSemver(%q) = %s, want %s", tt.in, v, tt.want)
		}
	}
}

func TestNormalizeSemver(t *testing.T) {
	for in, want := range map[string]string{"v1": "1.0.0", "1.2": "1.2.0", "01.002.3": "1.2.3", "v1.0.0-rc.1": "1.0.0-rc.1"} {
		v, err := normalizeSemver(in)
		if err != nil || v.String() != want {
			t.Errorf("normalizeSemver(%q) = %s, %v; want %s", in, v, err, want)
		}
	}
	if _, err := normalizeSemver("1.2-rc"); err == nil || err.Error() != "short version cannot contain PreRelease/Build meta data" {
		t.Errorf("normalizeSemver(1.2-rc): %v", err)
	}
}

// TestSemverPrecedence follows the example of semver.org 2.0.0, section 11.
func TestSemverPrecedence(t *testing.T) {
	ordered := []string{"1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "1.0.1", "1.1.0", "2.0.0"}
	for i := 1; i < len(ordered); i++ {
		a, _ := ParseSemver(ordered[i-1])
		b, _ := ParseSemver(ordered[i])
		if a.Compare(b) != -1 || b.Compare(a) != 1 {
			t.Errorf("%s is not below %s", a, b)
		}
	}
	a, _ := ParseSemver("1.0.0+a")
	b, _ := ParseSemver("1.0.0+b")
	if a.Compare(b) != 0 {
		t.Error("build metadata takes part in precedence")
	}
}
