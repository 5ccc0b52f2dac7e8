package daemon

import (
	"testing"
	"time"
)

func TestSampleClock(t *testing.T) {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	dev := base.Add(-time.Hour) // the device's clock is an hour behind
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	type step struct{ device, arrival, want time.Duration }
	cases := []struct {
		name  string
		zero  bool // the device sends no timestamps
		steps []step
	}{
		{name: "bunched arrivals keep the device's spacing", steps: []step{
			{0, ms(5), ms(5)},
			{ms(100), ms(105), ms(105)},
			{ms(200), ms(390), ms(205)}, // queued behind a busy agent
			{ms(300), ms(392), ms(305)},
			{ms(400), ms(405), ms(405)},
		}},
		{name: "a faster arrival lowers the offset, never past an arrival", steps: []step{
			{0, ms(50), ms(50)},
			{ms(100), ms(110), ms(110)},
			{ms(200), ms(250), ms(210)},
		}},
		{name: "a jump of the device's clock starts afresh", steps: []step{
			{0, ms(5), ms(5)},
			{ms(100), ms(105), ms(105)},
			{-ms(10000), ms(205), ms(205)}, // the device went back ten seconds
			{-ms(9900), ms(305), ms(305)},
		}},
		{name: "stamps never go backwards", steps: []step{
			{ms(100), ms(105), ms(105)},
			{ms(90), ms(106), ms(105)}, // the device's clock stepped back a little: held
		}},
		{name: "no timestamps: arrival", zero: true, steps: []step{
			{0, ms(5), ms(5)},
			{0, ms(300), ms(300)},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := sampleClock{maxLag: time.Second}
			for i, s := range tc.steps {
				d := dev.Add(s.device)
				if tc.zero {
					d = time.Unix(0, 0)
				}
				got := c.at(batchTime([]time.Time{d}), base.Add(s.arrival))
				if want := base.Add(s.want); !got.Equal(want) {
					t.Fatalf("step %d: stamped %v, want %v", i, got.Sub(base), want.Sub(base))
				}
				if got.After(base.Add(s.arrival)) {
					t.Fatalf("step %d: stamp after its arrival", i)
				}
			}
		})
	}
}
