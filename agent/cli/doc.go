// Package cli is rocefab's command line: thin cobra commands that parse
// flags and call one engine per verb. Cobra and viper live only here.
package cli
