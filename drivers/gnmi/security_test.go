package gnmi_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/drivers/gnmi"
	"github.com/rocefab/rocefab/drivers/sim/gnmisim"
)

func TestTLSTrust(t *testing.T) {
	sim := startSim(t, gnmisim.Options{})
	other := startSim(t, gnmisim.Options{Name: "other"}) // a CA the target did not use
	tests := []struct {
		name    string
		tls     drivers.TLSOptions
		wantErr error
	}{
		{"own CA verifies", drivers.TLSOptions{CAFile: caFile(t, sim)}, nil},
		{"untrusted CA refused", drivers.TLSOptions{CAFile: caFile(t, other)}, drivers.ErrTrust},
		{"system roots refuse a self-signed CA", drivers.TLSOptions{}, drivers.ErrTrust},
		{"insecure skips verification", drivers.TLSOptions{CAFile: caFile(t, other), Insecure: true}, nil},
		{"wrong server name refused", drivers.TLSOptions{CAFile: caFile(t, sim), ServerName: "spine.example"}, drivers.ErrTrust},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opt := options(t, sim, ocPlatform(), ocScope)
			opt.TLS = tt.tls
			opt.Retries = 3 // trust failures must not be retried anyway
			d, err := gnmi.Dial(context.Background(), opt)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatal(err)
				}
				d.Close()
				return
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if errors.Is(err, drivers.ErrTransient) {
				t.Errorf("trust failure classed transient: %v", err)
			}
			if !strings.Contains(err.Error(), "leaf1") || !strings.Contains(err.Error(), "insecure") {
				t.Errorf("error should name the device and the way out: %v", err)
			}
		})
	}
}

func TestMutualTLS(t *testing.T) {
	sim := startSim(t, gnmisim.Options{RequireClientCert: true})
	dir := t.TempDir()
	cert, key := filepath.Join(dir, "client.pem"), filepath.Join(dir, "client.key")
	if err := os.WriteFile(cert, sim.PKI().ClientCertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, sim.PKI().ClientKeyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	opt := options(t, sim, ocPlatform(), ocScope)
	if _, err := gnmi.Dial(context.Background(), opt); err == nil {
		t.Fatal("a client without certificate was accepted")
	}
	opt.TLS.CertFile, opt.TLS.KeyFile = cert, key
	d, err := gnmi.Dial(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
}

// Wrong or refused credentials are ErrAuth, never retried, and the
// password shows up in no error and no log line.
func TestAuthenticationErrors(t *testing.T) {
	tests := []struct {
		name   string
		creds  drivers.Credentials
		faults gnmisim.Faults
	}{
		{"wrong password", drivers.Credentials{Username: testUser, Password: "wr0ng-" + testPass}, gnmisim.Faults{}},
		{"no credentials", drivers.Credentials{}, gnmisim.Faults{}},
		{"device refuses authentication", drivers.Credentials{Username: testUser, Password: testPass}, gnmisim.Faults{RefuseAuth: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sim := startSim(t, gnmisim.Options{})
			sim.SetFaults(tt.faults)
			log, buf := bufferLogger()
			opt := options(t, sim, ocPlatform(), ocScope)
			opt.Creds, opt.Logger, opt.Retries = tt.creds, log, 3
			_, err := gnmi.Dial(context.Background(), opt)
			if !errors.Is(err, drivers.ErrAuth) {
				t.Fatalf("err = %v, want ErrAuth", err)
			}
			if errors.Is(err, drivers.ErrTransient) {
				t.Error("auth failure classed transient")
			}
			msg := err.Error()
			if !strings.Contains(msg, "leaf1") || !strings.Contains(msg, "authentication") {
				t.Errorf("unclear error: %s", msg)
			}
			for _, secret := range []string{testPass, tt.creds.Password} {
				if secret == "" {
					continue
				}
				if strings.Contains(msg, secret) || strings.Contains(fmt.Sprintf("%+v %#v", err, opt), secret) {
					t.Errorf("password in error or options dump: %s", msg)
				}
				if strings.Contains(buf.String(), secret) {
					t.Errorf("password in log:\n%s", buf.String())
				}
			}
		})
	}
}

// A successful session logs at debug level: still no password.
func TestPasswordNeverLogged(t *testing.T) {
	sim := startSim(t, gnmisim.Options{CommitConfirmed: true})
	log, buf := bufferLogger()
	opt := options(t, sim, ocPlatform(), ocScope)
	opt.Logger = log
	d := dial(t, opt)
	ctx := context.Background()
	p, err := d.Push(ctx, ocPatch, drivers.PushOptions{ConfirmWindow: 0})
	if err != nil {
		t.Fatal(err)
	}
	_ = p.Confirm(ctx)
	sim.SetFaults(gnmisim.Faults{RejectPath: "/interfaces", RejectMessage: "no"})
	_, err = d.Push(ctx, devcfg.Patch{Updates: []devcfg.PathUpdate{{Path: "/interfaces/interface[name=Ethernet1]/config/mtu", Value: devcfg.Int(1)}}}, drivers.PushOptions{})
	if err == nil {
		t.Fatal("rejected push succeeded")
	}
	if _, err := d.Fetch(ctx); err != nil {
		t.Fatal(err)
	}
	if buf.Len() == 0 {
		t.Fatal("nothing logged: the check would be vacuous")
	}
	if strings.Contains(buf.String(), testPass) || strings.Contains(err.Error(), testPass) {
		t.Errorf("password leaked:\n%s\n%v", buf.String(), err)
	}
}
