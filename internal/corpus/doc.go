// Package corpus finds the shared corpus of real device output for tests:
// perftest runs, NIC counters, an RDMA sysfs tree and switch running
// configs published by others, each with a .src file naming its source.
// Tests read it in place from ROCEFAB_CORPUS_DIR, else ../shared/corpus
// beside the checkout, and never copy it into the repository.
package corpus
