// Package hostcontract is the versioned JSON contract between the central
// rocefab and the rocefab it runs on hosts over SSH (host plan/apply, doctor,
// probe), plus a small client that runs those commands and decodes answers.
package hostcontract
