package probewire

import (
	"github.com/rocefab/rocefab/agent/daemon"
	"github.com/rocefab/rocefab/agent/fleet"
	"github.com/rocefab/rocefab/validators/probe/mesh"
)

// FleetProbe is Runner over the fleet's prober: each sender probes where
// it is, as `rocefab probe` runs it.
func FleetProbe(f *fleet.Fleet, parallel int) daemon.ProbeRunner {
	return Runner(fleet.Prober{F: f}, parallel)
}

// FleetMesh is MeshRunner over the fleet's flow runner, as `rocefab probe
// --mesh` runs it.
func FleetMesh(f *fleet.Fleet, opt mesh.Options) daemon.MeshRunner {
	return MeshRunner(fleet.MeshRunner{F: f}, opt)
}
