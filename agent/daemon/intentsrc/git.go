package intentsrc

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
	"go.uber.org/zap"
	xssh "golang.org/x/crypto/ssh"

	"github.com/rocefab/rocefab/internal/secret"
)

// ErrConfig is wrapped by errors in the git source settings.
var ErrConfig = errors.New("git intent source")

// GitOptions configure a git source.
type GitOptions struct {
	// URL of the repository: https://..., ssh://..., git@host:path, or a
	// local path (tests).
	URL string
	// Branch or Tag to follow; Branch defaults to main.
	Branch string
	Tag    string
	// Paths are intent files or folders relative to the repository root;
	// default the root.
	Paths []string
	// Dir is the working copy, under the agent's state directory.
	Dir  string
	Auth GitAuth
	// CABundle adds trusted CAs for HTTPS (PEM).
	CABundle []byte
	Logger   *zap.Logger
}

// GitAuth is how to authenticate. Token (HTTPS) and SSHKeyFile are
// alternatives; neither means anonymous.
type GitAuth struct {
	// Username for HTTPS basic auth with Token as the password; default
	// "git" (GitHub and GitLab accept any name with a token).
	Username string
	Token    string
	// SSHKeyFile is a private key (PEM/OpenSSH), SSHKeyPassphrase its
	// passphrase if encrypted.
	SSHKeyFile       string
	SSHKeyPassphrase string
	// KnownHosts files verify the server's SSH host key; empty uses
	// $SSH_KNOWN_HOSTS or ~/.ssh/known_hosts.
	KnownHosts []string
	// InsecureIgnoreHostKey accepts any SSH host key (unsafe, explicit).
	InsecureIgnoreHostKey bool
}

// String never shows the token or passphrase.
func (a GitAuth) String() string {
	switch {
	case a.Token != "":
		return "https token (redacted)"
	case a.SSHKeyFile != "":
		return "ssh key " + a.SSHKeyFile
	}
	return "anonymous"
}

// GoString is String, so %#v cannot print secrets either.
func (a GitAuth) GoString() string { return a.String() }

// Git follows a branch or tag of a repository.
type Git struct {
	opt GitOptions
	// remote is the URL without its password: what the working copy's
	// .git/config records. A password written in the URL is passed to the
	// server from memory only (as basic auth), never stored.
	remote   string
	password string
	auth     transport.AuthMethod
	repo     *git.Repository
	log      *zap.Logger
}

// NewGit checks the options and prepares authentication. Nothing is
// fetched until Update.
func NewGit(opt GitOptions) (*Git, error) {
	if opt.URL == "" {
		return nil, fmt.Errorf("%w: no repository URL", ErrConfig)
	}
	if opt.Dir == "" {
		return nil, fmt.Errorf("%w: no working directory", ErrConfig)
	}
	if opt.Branch != "" && opt.Tag != "" {
		return nil, fmt.Errorf("%w: set a branch or a tag, not both", ErrConfig)
	}
	if opt.Branch == "" && opt.Tag == "" {
		opt.Branch = "main"
	}
	if len(opt.Paths) == 0 {
		opt.Paths = []string{"."}
	}
	for _, p := range opt.Paths {
		if filepath.IsAbs(p) || strings.HasPrefix(filepath.Clean(p), "..") {
			return nil, fmt.Errorf("%w: intent path %q must be relative to the repository root", ErrConfig, p)
		}
	}
	if opt.Logger == nil {
		opt.Logger = zap.NewNop()
	}
	g := &Git{opt: opt, log: opt.Logger, remote: opt.URL}
	if pw := URLPassword(opt.URL); pw != "" {
		u, _ := url.Parse(opt.URL)
		if u.Scheme != "https" && u.Scheme != "http" {
			return nil, fmt.Errorf("%w: a password in a %s URL is not supported (%s); use an SSH key", ErrConfig, u.Scheme, Redact(opt.URL))
		}
		if opt.Auth.Token != "" {
			return nil, fmt.Errorf("%w: %s holds a password and a token is set too; give one", ErrConfig, Redact(opt.URL))
		}
		g.password = pw
		u.User = url.User(u.User.Username())
		g.remote = u.String()
	}
	auth, err := g.authMethod()
	if err != nil {
		return nil, err
	}
	g.auth = auth
	return g, nil
}

func (g *Git) authMethod() (transport.AuthMethod, error) {
	a := g.opt.Auth
	if a.Token != "" && a.SSHKeyFile != "" {
		return nil, fmt.Errorf("%w: set a token or an SSH key, not both", ErrConfig)
	}
	if a.Token != "" {
		if isSSH(g.opt.URL) {
			return nil, fmt.Errorf("%w: a token authenticates HTTPS; %s is an SSH URL (use an SSH key)", ErrConfig, Redact(g.opt.URL))
		}
		user := a.Username
		if user == "" {
			user = "git"
		}
		return &githttp.BasicAuth{Username: user, Password: a.Token}, nil
	}
	if g.password != "" {
		u, _ := url.Parse(g.opt.URL)
		return &githttp.BasicAuth{Username: u.User.Username(), Password: g.password}, nil
	}
	if a.SSHKeyFile == "" {
		return nil, nil
	}
	user := "git"
	if ep, err := transport.NewEndpoint(g.opt.URL); err == nil && ep.User != "" {
		user = ep.User
	}
	keys, err := gitssh.NewPublicKeysFromFile(user, a.SSHKeyFile, a.SSHKeyPassphrase)
	if err != nil {
		return nil, fmt.Errorf("%w: SSH key %s: %v", ErrConfig, a.SSHKeyFile, err)
	}
	if a.InsecureIgnoreHostKey {
		keys.HostKeyCallback = xssh.InsecureIgnoreHostKey()
	} else {
		cb, err := gitssh.NewKnownHostsCallback(a.KnownHosts...)
		if err != nil {
			return nil, fmt.Errorf("%w: known_hosts %s: %v (set the known-hosts file, or the explicit insecure option)", ErrConfig, strings.Join(a.KnownHosts, ", "), err)
		}
		keys.HostKeyCallback = cb
	}
	return keys, nil
}

func isSSH(u string) bool {
	if strings.HasPrefix(u, "ssh://") {
		return true
	}
	// scp-like: user@host:path, with no scheme.
	return !strings.Contains(u, "://") && strings.Contains(u, "@") && strings.Contains(u, ":")
}

func (g *Git) ref() string {
	if g.opt.Tag != "" {
		return "tag " + g.opt.Tag
	}
	return "branch " + g.opt.Branch
}

func (g *Git) String() string { return "git " + Redact(g.opt.URL) + " " + g.ref() }

// Update fetches the branch or tag and checks out its commit.
func (g *Git) Update(ctx context.Context) (Snapshot, error) {
	if err := g.open(); err != nil {
		return Snapshot{}, err
	}
	var spec config.RefSpec
	var local plumbing.ReferenceName
	if g.opt.Tag != "" {
		local = plumbing.NewTagReferenceName(g.opt.Tag)
		spec = config.RefSpec("+" + local.String() + ":" + local.String())
	} else {
		local = plumbing.NewRemoteReferenceName("origin", g.opt.Branch)
		spec = config.RefSpec("+" + plumbing.NewBranchReferenceName(g.opt.Branch).String() + ":" + local.String())
	}
	err := g.repo.FetchContext(ctx, &git.FetchOptions{RemoteName: "origin", RefSpecs: []config.RefSpec{spec},
		Auth: g.auth, Force: true, Tags: git.NoTags, CABundle: g.opt.CABundle})
	if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
		return Snapshot{}, fmt.Errorf("git fetch %s %s: %s", Redact(g.opt.URL), g.ref(), g.clean(err))
	}
	ref, err := g.repo.Reference(local, true)
	if err != nil {
		return Snapshot{}, fmt.Errorf("git %s: %s not found after fetch: %v", Redact(g.opt.URL), g.ref(), err)
	}
	commit, err := g.commitOf(ref.Hash())
	if err != nil {
		return Snapshot{}, fmt.Errorf("git %s %s: %v", Redact(g.opt.URL), g.ref(), err)
	}
	wt, err := g.repo.Worktree()
	if err != nil {
		return Snapshot{}, err
	}
	head, err := g.repo.Head()
	if err != nil || head.Hash() != commit {
		if err := wt.Checkout(&git.CheckoutOptions{Hash: commit, Force: true}); err != nil {
			return Snapshot{}, fmt.Errorf("git checkout %s: %v", commit, err)
		}
		g.log.Info("checked out intent", zap.String("commit", commit.String()), zap.String("ref", g.ref()))
	}
	paths := make([]string, len(g.opt.Paths))
	for i, p := range g.opt.Paths {
		paths[i] = filepath.Join(g.opt.Dir, p)
	}
	return Snapshot{Paths: paths, Root: g.opt.Dir, Commit: commit.String(), Revision: commit.String()}, nil
}

// commitOf peels an annotated tag to its commit.
func (g *Git) commitOf(h plumbing.Hash) (plumbing.Hash, error) {
	if tag, err := g.repo.TagObject(h); err == nil {
		c, err := tag.Commit()
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("tag %s does not point at a commit: %v", tag.Name, err)
		}
		return c.Hash, nil
	}
	c, err := g.repo.CommitObject(h)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return c.Hash, nil
}

// open opens the working copy, or makes a fresh one when it is missing or
// was made for another URL.
func (g *Git) open() error {
	if g.repo != nil {
		return nil
	}
	if repo, err := git.PlainOpen(g.opt.Dir); err == nil {
		if rem, err := repo.Remote("origin"); err == nil && len(rem.Config().URLs) > 0 && rem.Config().URLs[0] == g.remote {
			g.repo = repo
			return nil
		}
		g.log.Info("intent working copy was made for another repository; starting afresh", zap.String("dir", g.opt.Dir))
	}
	if err := os.RemoveAll(g.opt.Dir); err != nil {
		return fmt.Errorf("git working copy %s: %w", g.opt.Dir, err)
	}
	if err := os.MkdirAll(g.opt.Dir, 0o700); err != nil {
		return fmt.Errorf("git working copy %s: %w", g.opt.Dir, err)
	}
	repo, err := git.PlainInit(g.opt.Dir, false)
	if err != nil {
		return fmt.Errorf("git init %s: %w", g.opt.Dir, err)
	}
	if _, err := repo.CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{g.remote}}); err != nil {
		return fmt.Errorf("git remote: %w", err)
	}
	g.repo = repo
	return nil
}

// clean takes secrets out of an error message: the URL's password and the
// token.
func (g *Git) clean(err error) string {
	msg := strings.ReplaceAll(err.Error(), g.opt.URL, Redact(g.opt.URL))
	return secret.Redact(msg, g.opt.Auth.Token, g.password, g.opt.Auth.SSHKeyPassphrase)
}

// URLPassword is the password written in a URL's user information, or "".
func URLPassword(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return ""
	}
	pw, _ := u.User.Password()
	return pw
}

// Redact drops a password from a URL ("https://user:xxxxx@host/...").
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	return u.Redacted()
}
