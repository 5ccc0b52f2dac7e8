package cli

import "github.com/rocefab/rocefab/agent/fleet"

// readDCBXPeer reads a port's DCBX neighbour; tests substitute a simulated
// kernel answer.
var readDCBXPeer fleet.DCBXPeerReader = fleet.ReadDCBXPeer
