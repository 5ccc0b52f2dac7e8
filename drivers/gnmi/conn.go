package gnmi

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/internal/secret"
)

// dialOptions builds transport security and per-RPC credentials. TLS
// verifies the target against the CA bundle (or the system roots) unless
// Insecure was passed explicitly.
func dialOptions(opt drivers.Options, hs *handshakeRecorder) ([]grpc.DialOption, error) {
	var dial []grpc.DialOption
	if opt.TLS.Plaintext {
		dial = append(dial, grpc.WithTransportCredentials(insecure.NewCredentials()))
	} else {
		cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: opt.TLS.ServerName}
		if opt.TLS.CAFile != "" {
			pool, err := opt.Files.Load("x509-pool", opt.TLS.CAFile, loadCAPool)
			if err != nil {
				return nil, err
			}
			cfg.RootCAs = pool.(*x509.CertPool)
		}
		if opt.TLS.Insecure {
			cfg.InsecureSkipVerify = true // only by explicit --insecure
		}
		if opt.TLS.CertFile != "" || opt.TLS.KeyFile != "" {
			cert, err := tls.LoadX509KeyPair(opt.TLS.CertFile, opt.TLS.KeyFile)
			if err != nil {
				return nil, fmt.Errorf("%w: client certificate: %v", drivers.ErrTrust, err)
			}
			cfg.Certificates = []tls.Certificate{cert}
		}
		hs.TransportCredentials = credentials.NewTLS(cfg)
		dial = append(dial, grpc.WithTransportCredentials(hs))
	}
	if opt.Creds.Username != "" || opt.Creds.Password != "" {
		dial = append(dial, grpc.WithPerRPCCredentials(passwordCreds{
			user: opt.Creds.Username, pass: opt.Creds.Password, secure: !opt.TLS.Plaintext,
		}))
	}
	return dial, nil
}

// loadCAPool parses a CA bundle. A pool is only read once built, so one
// serves every connection (drivers.FileCache).
func loadCAPool(path string) (any, error) {
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: CA bundle: %v", drivers.ErrTrust, err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%w: CA bundle %s holds no PEM certificate", drivers.ErrTrust, path)
	}
	return pool, nil
}

// passwordCreds sends username and password as gRPC metadata, the gNMI
// convention. It never prints the password.
type passwordCreds struct {
	user, pass string
	secure     bool
}

func (c passwordCreds) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"username": c.user, "password": c.pass}, nil
}

func (c passwordCreds) RequireTransportSecurity() bool { return c.secure }

func (c passwordCreds) String() string { return "user=" + c.user + " password=<redacted>" }

// handshakeRecorder remembers the last TLS handshake failure, so an
// Unavailable caused by an untrusted certificate is reported as a trust
// problem and not retried as a transient outage.
type handshakeRecorder struct {
	credentials.TransportCredentials
	mu  sync.Mutex
	err error
}

func (h *handshakeRecorder) ClientHandshake(ctx context.Context, authority string, conn net.Conn) (net.Conn, credentials.AuthInfo, error) {
	c, info, err := h.TransportCredentials.ClientHandshake(ctx, authority, conn)
	h.mu.Lock()
	h.err = err
	h.mu.Unlock()
	return c, info, err
}

func (h *handshakeRecorder) Clone() credentials.TransportCredentials {
	return &handshakeRecorder{TransportCredentials: h.TransportCredentials.Clone()}
}

func (h *handshakeRecorder) trustError() error {
	if h == nil || h.TransportCredentials == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	var verr *tls.CertificateVerificationError
	var uerr x509.UnknownAuthorityError
	var herr x509.HostnameError
	var cerr x509.CertificateInvalidError
	if errors.As(h.err, &verr) || errors.As(h.err, &uerr) || errors.As(h.err, &herr) || errors.As(h.err, &cerr) {
		return h.err
	}
	return nil
}

// classify maps a gRPC error to rocefab's sentinels. Transient codes are
// retried by drivers.Retry; authentication and trust failures never are.
func (d *Driver) classify(step, line string, err error) error {
	if err == nil {
		return nil
	}
	var de *drivers.DeviceError
	if errors.As(err, &de) {
		return err
	}
	st, ok := status.FromError(err)
	if !ok {
		if errors.Is(err, context.DeadlineExceeded) {
			return d.deviceErr(step, line, "", fmt.Errorf("%w: no answer within %s", drivers.ErrUnreachable, d.opt.Timeout))
		}
		return d.deviceErr(step, line, "", err)
	}
	msg := st.Message()
	var cause error
	switch st.Code() {
	case codes.Unauthenticated, codes.PermissionDenied:
		cause = fmt.Errorf("%w: the device refused user %q (gRPC %s); check the username and password", drivers.ErrAuth, d.opt.Creds.Username, st.Code())
	case codes.Unavailable:
		if terr := d.hs.trustError(); terr != nil {
			cause = fmt.Errorf("%w: TLS certificate of %s not verified (%v); pass the CA bundle, or --insecure to skip verification", drivers.ErrTrust, d.opt.Address, terr)
		} else {
			cause = fmt.Errorf("%w: %w (gRPC %s)", drivers.ErrUnreachable, drivers.ErrTransient, st.Code())
		}
	case codes.ResourceExhausted, codes.Aborted:
		cause = fmt.Errorf("%w (gRPC %s)", drivers.ErrTransient, st.Code())
	case codes.DeadlineExceeded:
		cause = fmt.Errorf("%w: no answer within %s (gRPC %s)", drivers.ErrUnreachable, d.opt.Timeout, st.Code())
	case codes.Canceled:
		cause = fmt.Errorf("cancelled (gRPC %s)", st.Code())
	case codes.Unimplemented:
		cause = fmt.Errorf("%w (gRPC %s)", drivers.ErrUnsupported, st.Code())
	default:
		cause = fmt.Errorf("%w (gRPC %s)", drivers.ErrRejected, st.Code())
	}
	return d.deviceErr(step, line, msg, cause)
}

// deviceErr builds the error users see, with the password redacted
// should a device ever echo it.
func (d *Driver) deviceErr(step, line, msg string, cause error) error {
	pw := d.opt.Creds.Password
	return &drivers.DeviceError{Device: d.opt.Device, Step: step, Line: secret.Redact(line, pw), Msg: secret.Redact(msg, pw), Err: secret.Error(cause, pw)}
}
