package sshsim

import "errors"

func newJunosDevice(*Sim) (personality, error) { return nil, errors.New("todo") }
func newSONiCDevice(*Sim) (personality, error) { return nil, errors.New("todo") }
func newNVUEDevice(*Sim) (personality, error)  { return nil, errors.New("todo") }
