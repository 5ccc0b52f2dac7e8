package renderers

import (
	"fmt"
	"strconv"
)

// LAGNumbers is the range of port-channel numbers a platform takes, as
// data beside its renderer, so a LAG the device would refuse is refused at
// render (and so at validate) naming the field.
type LAGNumbers struct {
	Platform string // as messages name it, e.g. "EOS"
	Example  string // a LAG name the platform takes, e.g. "Port-Channel10"
	Min, Max int
	Source   string // the vendor document that gives the range
}

// Number is the port-channel number of a LAG name: its trailing digits, so
// "Port-Channel10", "po10" and "10" are all 10. A name without one, or a
// number outside the range, is a *PortError on the port's lag field.
func (l LAGNumbers) Number(port, lag string) (int, error) {
	i := len(lag)
	for i > 0 && lag[i-1] >= '0' && lag[i-1] <= '9' {
		i--
	}
	if i == len(lag) {
		return 0, &PortError{Port: port, Field: "lag", Err: fmt.Errorf("LAG %q has no port-channel number (write e.g. %s)", lag, l.Example)}
	}
	n, err := strconv.Atoi(lag[i:])
	if err != nil || n < l.Min || n > l.Max {
		return 0, &PortError{Port: port, Field: "lag", Err: fmt.Errorf("LAG %q: %s port-channel numbers are %d..%d", lag, l.Platform, l.Min, l.Max)}
	}
	return n, nil
}

// PortError is a render refusal caused by one field of one port's entry,
// so validate reports it where that field is written.
type PortError struct {
	Port  string // the port's name
	Field string // the ports entry's field, e.g. "lag"
	Err   error
}

func (e *PortError) Error() string {
	return fmt.Sprintf("port %s: %s: %v", e.Port, e.Field, e.Err)
}

func (e *PortError) Unwrap() error { return e.Err }
