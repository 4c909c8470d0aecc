package fairqueuing

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestDealerRejectsImpossibleSizes(t *testing.T) {
	for _, tc := range []struct {
		name             string
		deck, hand       int
		wantErr          bool
		wantEntropyBits  int
		checkEntropyBits bool
	}{
		{name: "kube default 64 queues hand 8", deck: 64, hand: 8, wantEntropyBits: 48, checkEntropyBits: true},
		{name: "one queue", deck: 1, hand: 1, wantEntropyBits: 0, checkEntropyBits: true},
		{name: "hand larger than deck", deck: 4, hand: 5, wantErr: true},
		{name: "zero hand", deck: 4, hand: 0, wantErr: true},
		{name: "zero deck", deck: 0, hand: 1, wantErr: true},
		{name: "needs more than 60 bits", deck: 128, hand: 9, wantErr: true},
		{name: "deck beyond 2^26", deck: 1<<26 + 1, hand: 1, wantErr: true},
		{name: "exactly 60 bits", deck: 1024, hand: 6, wantEntropyBits: 60, checkEntropyBits: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := newDealer(tc.deck, tc.hand)
			if (err != nil) != tc.wantErr {
				t.Fatalf("newDealer(%d, %d) error = %v, want error %v", tc.deck, tc.hand, err, tc.wantErr)
			}
			if tc.checkEntropyBits {
				if got := RequiredEntropyBits(tc.deck, tc.hand); got != tc.wantEntropyBits {
					t.Errorf("RequiredEntropyBits(%d, %d) = %d, want %d", tc.deck, tc.hand, got, tc.wantEntropyBits)
				}
			}
		})
	}
}

// The hash is read as mixed-radix digits, one per card, each indexing
// the cards not dealt yet; worked by hand.
func TestDealIsTheMixedRadixReadingOfTheHash(t *testing.T) {
	for _, tc := range []struct {
		deck, hand int
		hash       uint64
		want       []int
	}{
		// 123 = 3 + 10*(3 + 9*1): digits 3, 3, 1. Card 0 is 3; digit 3
		// among {0,1,2,4,...} is 4; digit 1 among {0,1,2,5,...} is 1.
		{deck: 10, hand: 3, hash: 123, want: []int{3, 4, 1}},
		{deck: 10, hand: 3, hash: 0, want: []int{0, 1, 2}},
		// 9 + 10*8 + 90*7: the last card of every remaining deck.
		{deck: 10, hand: 3, hash: 9 + 10*8 + 90*7, want: []int{9, 8, 7}},
		{deck: 1, hand: 1, hash: 42, want: []int{0}},
	} {
		d, err := newDealer(tc.deck, tc.hand)
		if err != nil {
			t.Fatal(err)
		}
		if got := d.deal(tc.hash, nil); !slices.Equal(got, tc.want) {
			t.Errorf("deal(%d) of %d from %d = %v, want %v", tc.hash, tc.hand, tc.deck, got, tc.want)
		}
	}
}

// Over one full period of hashes, every ordered hand is dealt exactly
// once: no hand is favoured and every hand is possible.
func TestDealOverOnePeriodIsEveryOrderedHandOnce(t *testing.T) {
	for _, sizes := range [][2]int{{5, 2}, {6, 3}, {4, 4}, {7, 1}} {
		deck, hand := sizes[0], sizes[1]
		d, err := newDealer(deck, hand)
		if err != nil {
			t.Fatal(err)
		}
		period := 1
		for i := range hand {
			period *= deck - i
		}
		seen := map[string]bool{}
		for h := range uint64(period) {
			key := string(intsToBytes(d.deal(h, nil)))
			if seen[key] {
				t.Fatalf("deck %d hand %d: hash %d deals a hand dealt before", deck, hand, h)
			}
			seen[key] = true
		}
		if len(seen) != period {
			t.Errorf("deck %d hand %d: %d distinct hands, want %d", deck, hand, len(seen), period)
		}
	}
}

func intsToBytes(xs []int) []byte {
	b := make([]byte, len(xs))
	for i, x := range xs {
		b[i] = byte(x)
	}
	return b
}

func TestDealPropertiesOnRandomHashes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		deck := 1 + rng.IntN(128)
		hand := 1 + rng.IntN(min(deck, 8))
		d, err := newDealer(deck, hand)
		if err != nil {
			continue // too much entropy needed: not a valid configuration
		}
		for range 50 {
			h := rng.Uint64()
			got := d.deal(h, nil)
			if again := d.deal(h, nil); !slices.Equal(got, again) {
				t.Fatalf("deal is not deterministic: %v then %v", got, again)
			}
			if len(got) != hand {
				t.Fatalf("deck %d hand %d: dealt %d cards", deck, hand, len(got))
			}
			seen := map[int]bool{}
			for _, c := range got {
				if c < 0 || c >= deck {
					t.Fatalf("deck %d: card %d out of range in %v", deck, c, got)
				}
				if seen[c] {
					t.Fatalf("deck %d: card %d dealt twice in %v", deck, c, got)
				}
				seen[c] = true
			}
		}
	}
}

// Random hashes spread evenly: every queue is in about hand/deck of the
// hands.
func TestDealSpreadsEvenly(t *testing.T) {
	const deck, hand, n = 64, 8, 64000
	d, err := newDealer(deck, hand)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	counts := make([]int, deck)
	for range n {
		for _, c := range d.deal(rng.Uint64(), nil) {
			counts[c]++
		}
	}
	want := n * hand / deck // 8000
	for q, c := range counts {
		// Binomial standard deviation is about 85; allow 6 of them.
		if c < want-500 || c > want+500 {
			t.Errorf("queue %d is in %d hands, want about %d", q, c, want)
		}
	}
}

// Any hash, any valid sizes: the hand is handSize distinct queues of
// the deck.
func FuzzDeal(f *testing.F) {
	f.Add(uint64(123), 10, 3)
	f.Add(uint64(0), 1, 1)
	f.Add(^uint64(0), 64, 8)
	f.Fuzz(func(t *testing.T, hash uint64, deck, hand int) {
		d, err := newDealer(deck, hand)
		if err != nil {
			return
		}
		got := d.deal(hash, nil)
		if len(got) != hand {
			t.Fatalf("dealt %d cards, want %d", len(got), hand)
		}
		seen := map[int]bool{}
		for _, c := range got {
			if c < 0 || c >= deck || seen[c] {
				t.Fatalf("deck %d: bad hand %v", deck, got)
			}
			seen[c] = true
		}
	})
}
