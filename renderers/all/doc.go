// Package all registers every platform renderer: the single list to edit
// when a platform is added.
package all
