// Package all registers every driver transport: the single list to edit
// when a transport is added.
package all
