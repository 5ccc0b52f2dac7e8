// Package cumulus renders the lossless RoCE configuration of NVIDIA Cumulus
// Linux switches as NVUE's object tree, and parses `nv config show -o json`.
package cumulus
