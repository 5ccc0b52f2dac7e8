package probe

import "time"

// tokenBucket limits replies and CNPs so the responder cannot be turned into
// a reflector. Not safe for concurrent use; the responder holds its lock.
type tokenBucket struct {
	rate   float64 // tokens per second; < 0 means unlimited
	burst  float64
	tokens float64
	last   time.Time
}

func newTokenBucket(rate, burst float64, now time.Time) tokenBucket {
	return tokenBucket{rate: rate, burst: burst, tokens: burst, last: now}
}

// take removes n tokens if available.
func (b *tokenBucket) take(n float64, now time.Time) bool {
	if b.rate < 0 {
		return true
	}
	if el := now.Sub(b.last).Seconds(); el > 0 {
		b.tokens = min(b.burst, b.tokens+el*b.rate)
		b.last = now
	}
	if b.tokens < n {
		return false
	}
	b.tokens -= n
	return true
}
