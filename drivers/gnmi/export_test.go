package gnmi

import "time"

// SetHeldFor shortens the commit timer of changes pushed without a confirm
// window, for tests that wait for the target to roll one back.
func SetHeldFor(d time.Duration) (restore func()) {
	old := heldFor
	heldFor = d
	return func() { heldFor = old }
}
