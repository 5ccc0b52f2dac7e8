package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/agent/engine"
	"github.com/rocefab/rocefab/drivers"
	driversall "github.com/rocefab/rocefab/drivers/all"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/internal/secret"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/all"
	"github.com/rocefab/rocefab/validators/lint"
)

// app is the state one invocation shares between commands: streams, the
// settings (viper), the logger and the registries. Nothing is global, so
// tests run many invocations in one process.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	v              *viper.Viper
	log            *zap.Logger
	renderers      *renderers.Registry
	drivers        *drivers.Registry
	// secrets are the secret values this invocation resolved (device
	// passwords, tokens); stdout, stderr and the logs are passed through
	// it, a second line of defence behind the drivers' own redaction.
	secrets *secret.Redactor
	// unsafe holds the verification-disabling flags given on this command
	// line. They are read from the flag only: never from ROCEFAB_*
	// variables or the config file, so nothing but an explicit flag turns
	// verification off.
	unsafe map[string]bool
}

// unsafeFlags disable verification; see app.unsafe.
var unsafeFlags = []string{"insecure", "ssh-accept-new", "git-insecure-ignore-host-key"}

// unsafeEnv are the variables that would name an unsafe flag, were it a
// setting like the others: they are refused with a warning.
func unsafeEnv(name string) []string {
	env := "ROCEFAB_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
	if strings.HasPrefix(name, "git-") {
		return []string{env, "ROCEFAB_AGENT_GIT_" + strings.ToUpper(strings.ReplaceAll(strings.TrimPrefix(name, "git-"), "-", "_"))}
	}
	return []string{env}
}

// flagOnly reports whether an unsafe flag was given on the command line.
func (a *app) flagOnly(name string) bool { return a.unsafe[name] }

// Main runs rocefab with args and returns the process exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return run(ctx, args, stdin, stdout, stderr)
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	secrets := &secret.Redactor{}
	stdout, stderr = secrets.Writer(stdout), secrets.Writer(stderr)
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr, v: viper.New(), log: zap.NewNop(),
		renderers: all.Renderers(), drivers: driversall.Drivers(), secrets: secrets}
	root := a.rootCommand()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	_ = a.log.Sync()
	if err != nil && strings.HasPrefix(err.Error(), "unknown command ") {
		err = &exitError{code: ExitUsage, err: err}
	}
	code := exitCode(err)
	var ee *exitError
	if err != nil && !(errors.As(err, &ee) && ee.silent) {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		if code == ExitUsage {
			fmt.Fprintln(stderr, "Run 'rocefab --help' for usage.")
		}
	}
	return code
}

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "rocefab",
		Short: "Keep RoCEv2 fabrics lossless and compliant",
		Long: `rocefab validates a declarative RoCEv2 fabric intent, renders it for every
switch and host, plans and applies the changes safely, proves the fabric with
real RoCEv2 traffic, and watches for drift.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return a.setup(cmd)
		},
	}
	pf := root.PersistentFlags()
	pf.String("config", "", "config file for rocefab's own settings (YAML)")
	pf.String("log-level", "warn", "log level: debug, info, warn, error")
	pf.String("log-format", "console", "log format: console or json")
	pf.String("intent-max-file-size", sizeFlag(intent.DefaultFileBytes), "largest intent file read (e.g. 8MiB)")
	pf.String("intent-max-size", sizeFlag(intent.DefaultFabricBytes), "largest intent read, all its files together")
	pf.Int("intent-max-devices", intent.DefaultDevices, "most switches and hosts in one intent")
	pf.Int("intent-max-ports", intent.DefaultPorts, "most switch ports in one intent, after ranges expand")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageErr("%v", err) })
	// Every command, listed here: adding a verb adds its line.
	root.AddCommand(
		newAgentCommand(a),
		newApplyCommand(a),
		newRollbackCommand(a),
		newCablingCommand(a),
		newDemoCommand(a),
		newDoctorCommand(a),
		newHostCommand(a),
		newPlanCommand(a),
		newDriftCommand(a),
		newProbeCommand(a),
		newRenderCommand(a),
		newRunsCommand(a),
		newValidateCommand(a),
		newVersionCommand(a),
	)
	recordProbeRuns(a, root)
	root.AddCommand(newShowCommand(a))
	// Cobra's completion commands take their output when they are made.
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	a.finishTree(root)
	return root
}

// setup binds flags, ROCEFAB_* variables and the config file into viper,
// then builds the logger. Precedence: flag > environment > file > default.
func (a *app) setup(cmd *cobra.Command) error {
	a.v.SetEnvPrefix("ROCEFAB")
	a.v.SetEnvKeyReplacer(strings.NewReplacer("-", "_", ".", "_"))
	a.v.AutomaticEnv()
	var bindErr error
	a.unsafe = map[string]bool{}
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if slices.Contains(unsafeFlags, f.Name) {
			a.unsafe[f.Name] = f.Changed && f.Value.String() == "true"
			return
		}
		if err := a.v.BindPFlag(f.Name, f); err != nil && bindErr == nil {
			bindErr = err
		}
	})
	if bindErr != nil {
		return bindErr
	}
	for _, name := range unsafeFlags {
		if a.unsafe[name] {
			fmt.Fprintf(a.stderr, "WARNING: --%s: verification is off for this run\n", name)
		}
		// Said, not silently ignored: a variable never turns verification off.
		for _, env := range unsafeEnv(name) {
			if _, set := os.LookupEnv(env); set && cmd.Flags().Lookup(name) != nil {
				fmt.Fprintf(a.stderr, "WARNING: %s is ignored: verification is turned off only by the --%s flag\n", env, name)
			}
		}
	}
	if file := a.v.GetString("config"); file != "" {
		a.v.SetConfigFile(file)
		if err := a.v.ReadInConfig(); err != nil {
			return usageErr("config file %s: %v", file, err)
		}
		if err := checkConfigKeys(cmd.Root(), file); err != nil {
			return err
		}
	}
	if _, err := a.intentLimits(); err != nil {
		return err
	}
	log, err := newLogger(a.stderr, a.v.GetString("log-level"), a.v.GetString("log-format"))
	if err != nil {
		return usageErr("%v", err)
	}
	a.log = log
	return nil
}

// checkConfigKeys refuses settings no command knows, so a typo such as
// logLevel is an error rather than silently ignored. Known settings are
// every command's flags and the agent's section.
func checkConfigKeys(root *cobra.Command, file string) error {
	fileOnly := viper.New()
	fileOnly.SetConfigFile(file)
	if err := fileOnly.ReadInConfig(); err != nil {
		return usageErr("config file %s: %v", file, err)
	}
	known := map[string]bool{}
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) { known[f.Name] = true })
		c.PersistentFlags().VisitAll(func(f *pflag.Flag) { known[f.Name] = true })
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	for _, s := range agentSettings {
		known["agent."+s.key] = true
	}
	var unknown []string
	for _, k := range fileOnly.AllKeys() {
		for _, name := range unsafeFlags {
			if k == name || k == "agent."+strings.Replace(name, "git-", "git.", 1) {
				return usageErr("config file %s: %s turns verification off, which only the --%s flag on the command line does", file, k, name)
			}
		}
		if !known[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	sort.Strings(unknown)
	names := make([]string, 0, len(known))
	for k := range known {
		names = append(names, k)
	}
	sort.Strings(names)
	msgs := make([]string, len(unknown))
	for i, k := range unknown {
		msgs[i] = fmt.Sprintf("%q%s", k, closest(k, names))
	}
	return usageErr("config file %s: unknown setting %s", file, strings.Join(msgs, ", "))
}

// closest suggests the known name nearest to a misspelled one.
func closest(name string, known []string) string {
	flat := strings.NewReplacer("-", "", "_", "", ".", "").Replace(strings.ToLower(name))
	for _, k := range known {
		if strings.NewReplacer("-", "", "_", "", ".", "").Replace(k) == flat {
			return fmt.Sprintf(" (did you mean %q?)", k)
		}
	}
	return ""
}

// resolveSecret resolves a device's credentials, as the engine does, and
// remembers the password so nothing this invocation prints can show it.
func (a *app) resolveSecret(c compliance.Connection) (drivers.Credentials, error) {
	creds, err := engine.ResolveSecret(c)
	a.secrets.Add(creds.Password)
	return creds, err
}

// sizeFlag writes a default size the way the flag takes it.
func sizeFlag(n int64) string { return strconv.FormatInt(n>>20, 10) + "MiB" }

// intentLimits are the loader's limits from the --intent-max-* settings.
func (a *app) intentLimits() (intent.Limits, error) {
	var lim intent.Limits
	var err error
	if lim.FileBytes, err = intent.ParseSize(a.v.GetString("intent-max-file-size")); err != nil {
		return lim, usageErr("--intent-max-file-size: %v", err)
	}
	if lim.FabricBytes, err = intent.ParseSize(a.v.GetString("intent-max-size")); err != nil {
		return lim, usageErr("--intent-max-size: %v", err)
	}
	lim.Devices, lim.Ports = a.v.GetInt("intent-max-devices"), a.v.GetInt("intent-max-ports")
	if lim.Devices < 1 || lim.Ports < 1 {
		return lim, usageErr("--intent-max-devices and --intent-max-ports must be at least 1")
	}
	return lim, nil
}

// validate loads, resolves and lints intent paths within the limits.
func (a *app) validate(paths ...string) (*intent.Resolved, intent.Diagnostics) {
	lim, _ := a.intentLimits() // checked in setup
	return lint.ValidateWith(a.renderers, lim, paths...)
}

// validateBytes is validate for an intent read from standard input.
func (a *app) validateBytes(name string, data []byte) (*intent.Resolved, intent.Diagnostics) {
	lim, _ := a.intentLimits()
	return lint.ValidateBytesWith(a.renderers, lim, name, data)
}

// readStdinIntent reads an intent from standard input, at most the file
// limit (one byte more tells that it is over).
func (a *app) readStdinIntent() ([]byte, error) {
	lim, _ := a.intentLimits()
	b, err := io.ReadAll(io.LimitReader(a.stdin, lim.FileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read intent from standard input: %w", err)
	}
	return b, nil
}

// newLogger logs to stderr only; stdout is for what users read.
func newLogger(w io.Writer, level, format string) (*zap.Logger, error) {
	lvl, err := zapcore.ParseLevel(level)
	if err != nil {
		return nil, fmt.Errorf("--log-level %q: use debug, info, warn or error", level)
	}
	enc := zap.NewProductionEncoderConfig()
	enc.EncodeTime = zapcore.ISO8601TimeEncoder
	var encoder zapcore.Encoder
	switch format {
	case "json":
		encoder = zapcore.NewJSONEncoder(enc)
	case "console":
		enc.EncodeLevel = zapcore.CapitalLevelEncoder
		encoder = zapcore.NewConsoleEncoder(enc)
	default:
		return nil, fmt.Errorf("--log-format %q: use console or json", format)
	}
	return zap.New(zapcore.NewCore(encoder, zapcore.AddSync(w), lvl)), nil
}

// outputFlag adds --output with the allowed formats and returns a getter
// that validates it.
func outputFlag(cmd *cobra.Command, formats ...string) func() (string, error) {
	cmd.Flags().StringP("output", "o", formats[0], "output format: "+strings.Join(formats, ", "))
	return func() (string, error) {
		v, _ := cmd.Flags().GetString("output")
		for _, f := range formats {
			if v == f {
				return v, nil
			}
		}
		return "", usageErr("--output %q: use %s", v, strings.Join(formats, ", "))
	}
}

// requireArgs makes a missing argument a usage error (exit 64).
func requireArgs(min int, what string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) < min {
			return usageErr("missing %s", what)
		}
		return nil
	}
}

// exactArgs wants exactly n arguments; anything else is a usage error.
func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		switch {
		case len(args) < n:
			return usageErr("missing %s", what)
		case len(args) > n:
			return usageErr("unexpected argument %q: give only %s", args[n], what)
		}
		return nil
	}
}

// noArgs refuses arguments with a usage error.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageErr("%s takes no arguments, got %q", cmd.CommandPath(), args[0])
	}
	return nil
}
