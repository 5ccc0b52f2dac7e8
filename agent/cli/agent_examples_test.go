package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"

	"github.com/rocefab/rocefab/agent/daemon/shard"
)

// The examples under examples/systemd, examples/kubernetes and
// examples/github-actions are checked against the code: every setting they
// write exists, every flag they pass exists, and the security properties
// the docs promise hold.

// flatten lists the dotted keys of the leaves of a YAML mapping.
func flatten(prefix string, m map[string]any, out map[string]any) {
	for k, v := range m {
		key := k
		if prefix != "" {
			key = prefix + "." + k
		}
		if sub, ok := v.(map[string]any); ok {
			flatten(key, sub, out)
			continue
		}
		out[key] = v
	}
}

var sharedSettings = []string{"state-dir", "timeout", "retries", "parallelism", "insecure", "ssh-accept-new", "log-level", "log-format"}

// checkSettingsFile: every key is an agent setting or a shared one, and
// rocefab reads the file.
func checkSettingsFile(t *testing.T, name string, data []byte) {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	keys := map[string]any{}
	flatten("", m, keys)
	known := map[string]bool{}
	for _, s := range agentSettings {
		known["agent."+s.key] = true
	}
	for _, s := range sharedSettings {
		known[s] = true
	}
	var unknown []string
	for k := range keys {
		if !known[k] {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	if len(unknown) > 0 {
		t.Errorf("%s sets unknown settings %v", name, unknown)
	}
	file := filepath.Join(t.TempDir(), "rocefab.yaml")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "", "agent", "--config", file, "--print-settings")
	if code != 0 {
		t.Fatalf("%s: exit %d %s", name, code, errOut)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	for k, v := range keys {
		if _, isList := v.([]any); isList || !strings.HasPrefix(k, "agent.") || strings.HasSuffix(k, "webhook-url") {
			continue
		}
		if !sameSetting(v, got[k]) {
			t.Errorf("%s: %s is %v in the file but %v in effect", name, k, v, got[k])
		}
	}
}

// sameSetting compares a value as written with its effective value:
// durations by length ("15m" is "15m0s"), the rest by their JSON.
func sameSetting(written, effective any) bool {
	if ws, ok := written.(string); ok {
		if es, ok := effective.(string); ok {
			wd, werr := time.ParseDuration(ws)
			ed, eerr := time.ParseDuration(es)
			if werr == nil && eerr == nil {
				return wd == ed
			}
		}
	}
	w, e := jsonString(written), jsonString(effective)
	return w == e || w+".0" == e || strings.TrimSuffix(e, ".0") == w
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestExampleSettingsFiles(t *testing.T) {
	data, err := os.ReadFile("../../examples/systemd/rocefab.yaml")
	if err != nil {
		t.Fatal(err)
	}
	checkSettingsFile(t, "examples/systemd/rocefab.yaml", data)
	for _, doc := range k8sDocs(t, "config.yaml") {
		if doc.Kind == "ConfigMap" {
			checkSettingsFile(t, "examples/kubernetes/config.yaml", []byte(doc.Data["rocefab.yaml"]))
		}
	}
}

// k8sDoc is the part of a manifest the checks read.
type k8sDoc struct {
	Kind     string                `yaml:"kind"`
	Metadata struct{ Name string } `yaml:"metadata"`
	Data     map[string]string     `yaml:"data"`
	Spec     struct {
		Replicas *int                  `yaml:"replicas"`
		Strategy struct{ Type string } `yaml:"strategy"`
		Template struct {
			Spec podSpec `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

type podSpec struct {
	HostNetwork     bool `yaml:"hostNetwork"`
	SecurityContext struct {
		RunAsNonRoot *bool `yaml:"runAsNonRoot"`
	} `yaml:"securityContext"`
	Containers []container `yaml:"containers"`
}

type container struct {
	Name string   `yaml:"name"`
	Args []string `yaml:"args"`
	Env  []struct {
		Name      string `yaml:"name"`
		ValueFrom struct {
			FieldRef struct {
				FieldPath string `yaml:"fieldPath"`
			} `yaml:"fieldRef"`
		} `yaml:"valueFrom"`
	} `yaml:"env"`
	LivenessProbe *struct {
		HTTPGet struct{ Path string } `yaml:"httpGet"`
	} `yaml:"livenessProbe"`
	ReadinessProbe *struct {
		HTTPGet struct{ Path string } `yaml:"httpGet"`
	} `yaml:"readinessProbe"`
	SecurityContext struct {
		Privileged               *bool `yaml:"privileged"`
		RunAsUser                *int  `yaml:"runAsUser"`
		ReadOnlyRootFilesystem   bool  `yaml:"readOnlyRootFilesystem"`
		AllowPrivilegeEscalation *bool `yaml:"allowPrivilegeEscalation"`
		Capabilities             struct {
			Add  []string `yaml:"add"`
			Drop []string `yaml:"drop"`
		} `yaml:"capabilities"`
	} `yaml:"securityContext"`
}

func k8sDocs(t *testing.T, file string) []k8sDoc {
	t.Helper()
	f, err := os.Open(filepath.Join("../../examples/kubernetes", file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []k8sDoc
	dec := yaml.NewDecoder(f)
	for {
		var d k8sDoc
		if err := dec.Decode(&d); err != nil {
			if err.Error() == "EOF" {
				return out
			}
			t.Fatalf("%s: %v", file, err)
		}
		out = append(out, d)
	}
}

func workload(t *testing.T, file, kind string) k8sDoc {
	t.Helper()
	for _, d := range k8sDocs(t, file) {
		if d.Kind == kind {
			return d
		}
	}
	t.Fatalf("%s has no %s", file, kind)
	return k8sDoc{}
}

// findCommand follows args (without flags) down the command tree.
func findCommand(t *testing.T, args []string) (*cobra.Command, []string) {
	t.Helper()
	a := &app{v: nil}
	root := a.rootCommand()
	cmd, rest, err := root.Find(args)
	if err != nil || cmd == root {
		return nil, nil
	}
	return cmd, rest
}

// checkFlags: every --flag in args exists on the command args name.
func checkFlags(t *testing.T, where string, args []string) {
	t.Helper()
	cmd, _ := findCommand(t, args)
	if cmd == nil {
		t.Fatalf("%s: rocefab has no %q command", where, strings.Join(args[:2], " "))
	}
	for _, a := range args {
		if !strings.HasPrefix(a, "--") {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if cmd.Flags().Lookup(name) == nil && cmd.InheritedFlags().Lookup(name) == nil {
			t.Errorf("%s: rocefab %s has no flag --%s", where, cmd.CommandPath(), name)
		}
	}
}

func checkAgentPod(t *testing.T, file string, d k8sDoc) container {
	t.Helper()
	pod := d.Spec.Template.Spec
	if pod.SecurityContext.RunAsNonRoot == nil || !*pod.SecurityContext.RunAsNonRoot {
		t.Errorf("%s: the agent must run as non-root", file)
	}
	c := pod.Containers[0]
	sc := c.SecurityContext
	if !sc.ReadOnlyRootFilesystem || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation || !slices.Contains(sc.Capabilities.Drop, "ALL") {
		t.Errorf("%s: agent container security context %+v", file, sc)
	}
	if c.LivenessProbe == nil || c.LivenessProbe.HTTPGet.Path != "/healthz" || c.ReadinessProbe == nil || c.ReadinessProbe.HTTPGet.Path != "/readyz" {
		t.Errorf("%s: probes must use /healthz and /readyz", file)
	}
	checkFlags(t, file, c.Args)
	return c
}

func TestExampleKubernetes(t *testing.T) {
	t.Run("deployment", func(t *testing.T) {
		d := workload(t, "agent-deployment.yaml", "Deployment")
		checkAgentPod(t, "agent-deployment.yaml", d)
		if d.Spec.Replicas == nil || *d.Spec.Replicas != 1 || d.Spec.Strategy.Type != "Recreate" {
			t.Errorf("one agent per state directory: replicas %v strategy %q", d.Spec.Replicas, d.Spec.Strategy.Type)
		}
	})
	t.Run("statefulset shards by pod ordinal", func(t *testing.T) {
		d := workload(t, "agent-statefulset.yaml", "StatefulSet")
		c := checkAgentPod(t, "agent-statefulset.yaml", d)
		i := slices.Index(c.Args, "--shard")
		if i < 0 || i+1 >= len(c.Args) {
			t.Fatalf("no --shard in %v", c.Args)
		}
		podName := false
		for _, e := range c.Env {
			podName = podName || (e.Name == "POD_NAME" && e.ValueFrom.FieldRef.FieldPath == "metadata.name")
		}
		if !podName {
			t.Fatal("POD_NAME does not come from the downward API")
		}
		replicas := *d.Spec.Replicas
		owners := map[int]bool{}
		for ord := 0; ord < replicas; ord++ {
			arg := strings.ReplaceAll(c.Args[i+1], "$(POD_NAME)", d.Metadata.Name+"-"+strconv.Itoa(ord))
			spec, err := shard.Parse(arg)
			if err != nil {
				t.Fatalf("pod %d: --shard %s: %v", ord, arg, err)
			}
			if spec.Count != replicas || spec.Index != ord {
				t.Fatalf("pod %d gets shard %s with %d replicas", ord, spec, replicas)
			}
			owners[spec.Index] = true
		}
		if len(owners) != replicas {
			t.Fatalf("shards %v", owners)
		}
	})
	t.Run("host daemonset", func(t *testing.T) {
		d := workload(t, "host-daemonset.yaml", "DaemonSet")
		pod := d.Spec.Template.Spec
		if !pod.HostNetwork {
			t.Error("the host pod needs the host network")
		}
		for _, c := range pod.Containers {
			sc := c.SecurityContext
			if sc.Privileged != nil && *sc.Privileged {
				t.Errorf("%s is privileged: the manifest promises root with three capabilities", c.Name)
			}
			for _, cap := range sc.Capabilities.Add {
				if !slices.Contains([]string{"NET_ADMIN", "NET_RAW", "SYS_ADMIN"}, cap) {
					t.Errorf("%s adds %s", c.Name, cap)
				}
			}
			if !slices.Contains(sc.Capabilities.Drop, "ALL") || sc.RunAsUser == nil || *sc.RunAsUser != 0 {
				t.Errorf("%s: security context %+v", c.Name, sc)
			}
			t.Run(c.Name, func(t *testing.T) { checkFlags(t, "host-daemonset.yaml "+c.Name, c.Args) })
		}
		host := pod.Containers[0]
		if host.Args[0] != "host" || host.Args[1] != "apply" || !slices.Contains(host.Args, "--watch") {
			t.Errorf("host container runs %v", host.Args)
		}
	})
}

func TestExampleGitHubWorkflow(t *testing.T) {
	data, err := os.ReadFile("../../examples/github-actions/rocefab-plan.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		On   map[string]any `yaml:"on"`
		Jobs map[string]struct {
			Steps []struct {
				Name string `yaml:"name"`
				Run  string `yaml:"run"`
				Uses string `yaml:"uses"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatal(err)
	}
	if _, ok := wf.On["pull_request"]; !ok {
		t.Fatal("the workflow does not run on pull requests")
	}
	var runs []string
	comment := false
	for _, s := range wf.Jobs["plan"].Steps {
		runs = append(runs, s.Run)
		comment = comment || strings.HasPrefix(s.Uses, "actions/github-script")
	}
	all := strings.Join(runs, "\n")
	for _, want := range []string{"rocefab validate", "--output junit", "rocefab plan", "--out plan.json", "--detailed-exitcode",
		"rocefab plan plan.json --output markdown", "--full-plan-url", "rocefab plan plan.json --output text"} {
		if !strings.Contains(all, want) {
			t.Errorf("the workflow does not run %q", want)
		}
	}
	if !comment {
		t.Error("the workflow does not post the plan")
	}
	if !strings.Contains(string(data), "plan.txt") || !strings.Contains(string(data), "actions/upload-artifact") {
		t.Error("the workflow does not keep the full plan as an artifact")
	}
	checkFlags(t, "workflow", []string{"plan", "x", "--out", "plan.json", "--output", "junit", "--detailed-exitcode"})
	checkFlags(t, "workflow", []string{"plan", "plan.json", "--output", "markdown", "--markdown-limit", "64000", "--full-plan-url", "https://x"})
	checkFlags(t, "workflow", []string{"validate", "x", "--strict", "--output", "junit"})
}
