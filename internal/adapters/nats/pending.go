package nats

import (
	"sync"

	"moviesdiary/internal/delivery"
)

// pending holds messages a source has received but Claim has not handed out yet: the one a
// Wait caught, and copies held back by splitRepeats.
type pending struct {
	mu   sync.Mutex
	msgs []delivery.Message
}

func (p *pending) put(msgs ...delivery.Message) {
	p.mu.Lock()
	p.msgs = append(p.msgs, msgs...)
	p.mu.Unlock()
}

// take removes and returns up to max messages, oldest first.
func (p *pending) take(max int) []delivery.Message {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := min(max, len(p.msgs))
	out := append([]delivery.Message(nil), p.msgs[:n]...)
	p.msgs = p.msgs[n:]
	return out
}

func (p *pending) len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.msgs)
}

// firstOfEach returns msgs without repeated event ids and keeps the repeats for a later take.
func (p *pending) firstOfEach(msgs []delivery.Message) []delivery.Message {
	first, repeats := splitRepeats(msgs)
	p.put(repeats...)
	return first
}

// splitRepeats keeps the first message of each event id and returns the other copies apart. It
// is not what keeps a handler from running twice: the ledger does that (a key repeated in one
// claim is acquired once, and its copies are answered held: outbox.Claims). It saves the copy a
// long wait: held in the same batch, a copy is deferred to the end of the first one's ledger
// lease (30 minutes by default) though the first settles in moments; held back to the next
// claim, it finds the first one's claim still held (deferred the same way) or, once the first
// has settled, its done rows (skipped and acked at once). Messages without an id cannot be
// deduplicated and all stay.
func splitRepeats(msgs []delivery.Message) (first, repeats []delivery.Message) {
	seen := make(map[string]bool, len(msgs))
	first = msgs[:0]
	for _, m := range msgs {
		if m.EventID != "" && seen[m.EventID] {
			repeats = append(repeats, m)
			continue
		}
		seen[m.EventID] = true
		first = append(first, m)
	}
	return first, repeats
}
