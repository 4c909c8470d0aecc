package generic

import (
	"math/rand/v2"
)

// generatedSuffixLength is the number of random characters appended to a
// generateName prefix.
const generatedSuffixLength = 5

// maxGeneratedNameLength is the longest name a generated name may have,
// so that it is still a valid DNS label.
const maxGeneratedNameLength = 63

// suffixAlphabet leaves out vowels and easily confused characters so a
// generated name never spells a word, as kube-apiserver's does.
const suffixAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// GenerateName returns base followed by a random suffix, the base cut so
// that the result fits in a DNS label.
func GenerateName(base string) string {
	if len(base) > maxGeneratedNameLength-generatedSuffixLength {
		base = base[:maxGeneratedNameLength-generatedSuffixLength]
	}
	b := make([]byte, generatedSuffixLength)
	for i := range b {
		b[i] = suffixAlphabet[rand.IntN(len(suffixAlphabet))]
	}
	return base + string(b)
}
