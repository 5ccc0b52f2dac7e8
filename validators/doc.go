// Package validators checks intent and devices: static lint, compliance and
// drift, host/switch consistency, the RoCEv2 probe and the host doctor.
package validators
