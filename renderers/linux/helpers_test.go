package linux

import "os"

func readAll(p string) ([]byte, error) { return os.ReadFile(p) }
