// Package yangdir finds the shared OpenConfig YANG models for tests, read in
// place (never copied) from ROCEFAB_YANG_DIR, else ../shared/yang.
package yangdir
