// Package gittest makes throwaway git repositories for the agent's tests:
// commits and tags written with go-git, served to go-git in-process.
package gittest
