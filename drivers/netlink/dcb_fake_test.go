package netlink

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/drivers/hostcontract"
	"github.com/rocefab/rocefab/drivers/netlink/dcbnl"
)

// fakeDCB models a DCB-capable netdev. mlx5 mode follows
// mlx5e_dcbnl_ieee_setapp/delapp: one priority per DSCP (a new one
// replaces the old), DSCP trust while any DSCP entry exists, ENOENT on
// deleting an entry it does not hold. Otherwise it follows the generic
// dcb_ieee_setapp: entries are added, several priorities per protocol.
type fakeDCB struct {
	mlx5  bool
	dcbx  uint8
	pfc   dcbnl.PFC
	apps  []dcbnl.App
	trust []uint8 // nil: no apptrust support
	// failSet fails the nth setIEEE (1-based) with this errno.
	failSet   int
	failErrno syscall.Errno
	sets      int
}

func (f *fakeDCB) getIEEE(string) (*dcbnl.IEEE, error) {
	p := f.pfc
	out := &dcbnl.IEEE{PFC: &p, Apps: append([]dcbnl.App(nil), f.apps...), AppsPresent: true}
	if f.trust != nil {
		out.Trust, out.TrustPresent = append([]uint8{}, f.trust...), true
	}
	return out, nil
}

func (f *fakeDCB) setIEEE(_ string, ieee dcbnl.IEEE) error {
	f.sets++
	if f.sets == f.failSet {
		return f.failErrno
	}
	if ieee.Trust != nil {
		if f.trust == nil {
			return fmt.Errorf("%w: %v", drivers.ErrUnsupported, syscall.EOPNOTSUPP)
		}
		f.trust = append([]uint8{}, ieee.Trust...)
	}
	if ieee.PFC != nil {
		f.pfc = *ieee.PFC
	}
	for _, a := range ieee.Apps {
		if f.mlx5 && a.Selector == dcbnl.SelDSCP {
			f.remove(func(x dcbnl.App) bool { return x.Selector == a.Selector && x.Protocol == a.Protocol })
		}
		if !f.has(a) {
			f.apps = append(f.apps, a)
		}
	}
	return nil
}

func (f *fakeDCB) delApps(_ string, apps []dcbnl.App) error {
	for _, a := range apps {
		if !f.has(a) {
			if f.mlx5 {
				return syscall.ENOENT
			}
			continue
		}
		f.remove(func(x dcbnl.App) bool { return x == a })
	}
	return nil
}

func (f *fakeDCB) has(a dcbnl.App) bool {
	for _, x := range f.apps {
		if x == a {
			return true
		}
	}
	return false
}

func (f *fakeDCB) remove(match func(dcbnl.App) bool) {
	var keep []dcbnl.App
	for _, x := range f.apps {
		if !match(x) {
			keep = append(keep, x)
		}
	}
	f.apps = keep
}

func (f *fakeDCB) getDCBX(string) (uint8, error) { return f.dcbx, nil }

func (f *fakeDCB) setDCBX(_ string, mode uint8) error {
	if f.mlx5 {
		// mlx5e_dcbnl_setdcbx: LLD-managed is refused; no host bit means
		// firmware mode, which reads back as LLD-managed.
		if mode&dcbnl.DCBXLLDManaged != 0 {
			return errors.New("the device refused DCBX mode " + dcbnl.DCBXModeString(mode))
		}
		if mode&dcbnl.DCBXHost == 0 {
			mode |= dcbnl.DCBXLLDManaged
		}
	}
	f.dcbx = mode
	return nil
}

func (f *fakeDCB) close() {}

func dcbNIC(trust string) *devcfg.HostSettings {
	n := devcfg.NICSettings{Netdev: nic, DCBXMode: "host-ieee", Trust: trust, PFCEnable: ptr(uint8(0x08))}
	if trust == "dscp" {
		n.App = []devcfg.AppEntry{{Selector: 5, Priority: 3, Protocol: 26}, {Selector: 5, Priority: 6, Protocol: 48}}
	}
	return &devcfg.HostSettings{Host: "gpu07", NICs: []devcfg.NICSettings{n}}
}

func withDCB(t *testing.T, f *fakeDCB) *Host {
	t.Helper()
	h, err := OpenHost(HostOptions{Sysfs: DirFS(t.TempDir()), Configfs: DirFS(t.TempDir())})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	h.dcb.close()
	h.dcb = f
	return h
}

func TestDCBApplyMLX5(t *testing.T) {
	f := &fakeDCB{mlx5: true, dcbx: dcbnl.DCBXLLDManaged | dcbnl.DCBXVerIEEE, pfc: dcbnl.PFC{Cap: 8, Delay: 0xffff, MBC: 1}}
	h := withDCB(t, f)
	ctx := context.Background()
	res, err := h.Apply(ctx, dcbNIC("dscp"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range res.Settings {
		if s.Status != hostcontract.StatusChanged {
			t.Errorf("%s: %s %s", s.Path, s.Status, s.Message)
		}
	}
	if f.dcbx != dcbnl.DCBXHost|dcbnl.DCBXVerIEEE {
		t.Errorf("DCBX = %s", dcbnl.DCBXModeString(f.dcbx))
	}
	if want := (dcbnl.PFC{Cap: 8, Enable: 0x08, Delay: 0xffff, MBC: 1}); f.pfc != want {
		t.Errorf("PFC = %+v: the device's cap, mbc and delay must be kept", f.pfc)
	}
	if diff := cmp.Diff([]dcbnl.App{app(5, 3, 26), app(5, 6, 48)}, f.apps); diff != "" {
		t.Errorf("APP table (-want +got):\n%s", diff)
	}
	trust := res.Settings[3]
	if trust.Path != "nic/"+nic+"/trust" || trust.Current != "pcp" || trust.Mechanism != "dcbnl" {
		t.Errorf("trust setting = %+v", trust)
	}
	if got := res.Observed.NICs[0]; got.Trust != "dscp" || len(got.App) != 2 || *got.PFCEnable != 0x08 || got.DCBXMode != "host-ieee" {
		t.Errorf("observed = %+v", got)
	}
	again, err := h.Apply(ctx, dcbNIC("dscp"))
	if err != nil {
		t.Fatal(err)
	}
	if s := hostcontract.Summarise(again.Settings); s.OK != 5 {
		t.Errorf("second apply: %+v", s)
	}
}

func TestDCBAppReplacesOtherPriorities(t *testing.T) {
	for _, mlx5 := range []bool{false, true} {
		t.Run(fmt.Sprintf("mlx5=%v", mlx5), func(t *testing.T) {
			f := &fakeDCB{mlx5: mlx5, dcbx: 0x09, apps: []dcbnl.App{app(5, 4, 26), app(1, 3, 0x8915)}}
			if !mlx5 {
				f.apps = append(f.apps, app(5, 5, 26))
			}
			h := withDCB(t, f)
			res, err := h.Apply(context.Background(), dcbNIC("dscp"))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]dcbnl.App{app(1, 3, 0x8915), app(5, 3, 26), app(5, 6, 48)}, sortedApps(f.apps)); diff != "" {
				t.Errorf("APP table (-want +got):\n%s", diff)
			}
			if s := res.Settings[1]; s.Current == "" || s.Status != hostcontract.StatusChanged {
				t.Errorf("DSCP 26 setting = %+v", s)
			}
		})
	}
}

func TestDCBTrustTable(t *testing.T) {
	f := &fakeDCB{dcbx: 0x09, trust: []uint8{dcbnl.SelPCP}}
	h := withDCB(t, f)
	if _, err := h.Apply(context.Background(), dcbNIC("dscp")); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]uint8{dcbnl.SelDSCP}, f.trust); diff != "" {
		t.Errorf("trust table (-want +got):\n%s", diff)
	}
}

func TestDCBRollbackOnLateFailure(t *testing.T) {
	// The third IEEE SET is the PFC one (after the two APP entries).
	f := &fakeDCB{mlx5: true, dcbx: dcbnl.DCBXLLDManaged | dcbnl.DCBXVerIEEE, pfc: dcbnl.PFC{Cap: 8}, failSet: 3, failErrno: syscall.EINVAL}
	h := withDCB(t, f)
	res, err := h.Apply(context.Background(), dcbNIC("dscp"))
	if err == nil || !errors.Is(err, syscall.EINVAL) || !strings.Contains(err.Error(), "PFC enable") {
		t.Fatalf("err = %v", err)
	}
	if len(f.apps) != 0 {
		t.Errorf("APP entries left behind: %v", f.apps)
	}
	if f.pfc.Enable != 0 {
		t.Errorf("PFC = %#x", f.pfc.Enable)
	}
	// mlx5 refuses "LLD-managed" but goes back to firmware mode.
	st := statuses(res.Settings)
	if st["nic/"+nic+"/dcbx"] != hostcontract.StatusRolledBack || f.dcbx != dcbnl.DCBXLLDManaged|dcbnl.DCBXVerIEEE {
		t.Errorf("DCBX = %s (%s), want it back in firmware mode", dcbnl.DCBXModeString(f.dcbx), st["nic/"+nic+"/dcbx"])
	}
	if st["nic/"+nic+"/app/sel5/26"] != hostcontract.StatusRolledBack || st["nic/"+nic+"/pfc/enable"] != hostcontract.StatusFailed {
		t.Errorf("statuses = %v", st)
	}
}

func TestDCBImpliedTrustPCPWithForeignDSCPEntries(t *testing.T) {
	f := &fakeDCB{mlx5: true, dcbx: 0x09, apps: []dcbnl.App{app(5, 3, 26)}}
	h := withDCB(t, f)
	_, err := h.Apply(context.Background(), dcbNIC("pcp"))
	if err == nil || !strings.Contains(err.Error(), "trusts DSCP because its APP table has DSCP entries") {
		t.Fatalf("err = %v", err)
	}
	if f.pfc.Enable != 0 {
		t.Error("PFC left changed after the failed apply")
	}
}

func sortedApps(a []dcbnl.App) []dcbnl.App {
	out := append([]dcbnl.App(nil), a...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j].Selector < out[i].Selector || (out[j].Selector == out[i].Selector && out[j].Protocol < out[i].Protocol) {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

func app(sel, prio uint8, proto uint16) dcbnl.App {
	return dcbnl.App{Selector: sel, Priority: prio, Protocol: proto}
}
