package fairqueuing

import (
	"fmt"
	"math"
)

// Shuffle sharding: a flow's hash deals it a hand of handSize distinct
// queues out of a deck of deckSize. Flows whose hands differ by even one
// queue cannot starve each other, and a flow that floods fills only its
// own hand. The deal reads the hash as a number in a mixed radix
// (deckSize, deckSize-1, ...), one digit per card: digit i picks among
// the deckSize-i cards not dealt yet. Deals are exactly kube-apiserver's,
// so the same hash lands in the same queues.

// MaxHashBits is how many bits of the hash the deal may use: the hash
// must carry enough entropy for every hand to be possible.
const MaxHashBits = 60

// RequiredEntropyBits is the number of hash bits a deal of handSize
// cards from deckSize needs.
func RequiredEntropyBits(deckSize, handSize int) int {
	return int(math.Ceil(math.Log2(float64(deckSize)) * float64(handSize)))
}

// dealer deals hands of one deck and hand size.
type dealer struct {
	deckSize, handSize int
}

// newDealer checks the sizes as kube-apiserver does.
func newDealer(deckSize, handSize int) (dealer, error) {
	switch {
	case deckSize <= 0 || handSize <= 0:
		return dealer{}, fmt.Errorf("deckSize %d or handSize %d is not positive", deckSize, handSize)
	case handSize > deckSize:
		return dealer{}, fmt.Errorf("handSize %d is greater than deckSize %d", handSize, deckSize)
	case deckSize > 1<<26:
		return dealer{}, fmt.Errorf("deckSize %d is impractically large", deckSize)
	case RequiredEntropyBits(deckSize, handSize) > MaxHashBits:
		return dealer{}, fmt.Errorf("required entropy bits of deckSize %d and handSize %d is greater than %d", deckSize, handSize, MaxHashBits)
	}
	return dealer{deckSize: deckSize, handSize: handSize}, nil
}

// deal appends the hand of hash to hand and returns it: handSize
// distinct queue indexes in [0, deckSize).
//
// Digit i of the hash is the index of card i among the deckSize-i cards
// left after cards 0..i-1 were taken. Taking card j out of a deck shifts
// every later card down by one, so digit i is turned into a card of the
// full deck by undoing those removals, the latest first: past digit j
// (an index in the deck that card j was taken from), add one.
func (d dealer) deal(hash uint64, hand []int) []int {
	var digits [64]int
	for i := 0; i < d.handSize; i++ {
		radix := uint64(d.deckSize - i)
		digits[i] = int(hash % radix)
		hash /= radix
	}
	for i := 0; i < d.handSize; i++ {
		card := digits[i]
		for j := i - 1; j >= 0; j-- {
			if card >= digits[j] {
				card++
			}
		}
		hand = append(hand, card)
	}
	return hand
}
