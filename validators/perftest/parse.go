package perftest

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Latency is one latency row, in microseconds. For send and write tests
// perftest reports half the round trip (one-way); for read, the full trip.
type Latency struct {
	Bytes      int     `json:"bytes"`
	Iterations int     `json:"iterations"`
	MinUs      float64 `json:"minUs"`
	MaxUs      float64 `json:"maxUs"`
	TypicalUs  float64 `json:"typicalUs"` // median
	AvgUs      float64 `json:"avgUs"`
	StdevUs    float64 `json:"stdevUs"`
	P99Us      float64 `json:"p99Us"`
	P999Us     float64 `json:"p999Us"`
	// TPS is set by duration-mode latency runs, which report only an
	// average and transactions per second.
	TPS float64 `json:"tps,omitempty"`
}

// Bandwidth is one bandwidth row.
type Bandwidth struct {
	Bytes       int     `json:"bytes"`
	Iterations  int     `json:"iterations"`
	PeakGbps    float64 `json:"peakGbps"`
	AvgGbps     float64 `json:"avgGbps"`
	MsgRateMpps float64 `json:"msgRateMpps"`
}

// Report is what one perftest run printed.
type Report struct {
	Title    string `json:"title,omitempty"` // "RDMA_Write BW Test"
	Device   string `json:"device,omitempty"`
	LinkType string `json:"linkType,omitempty"`
	MTU      int    `json:"mtu,omitempty"`
	GIDIndex int    `json:"gidIndex"`
	// TOS is what perftest says it used (-1 when it did not say).
	TOS       int         `json:"tos"`
	Latency   []Latency   `json:"latency,omitempty"`
	Bandwidth []Bandwidth `json:"bandwidth,omitempty"`
	// Problems are perftest's own error lines ("Couldn't connect ...").
	Problems []string `json:"problems,omitempty"`
}

// ErrNoResults: the output holds no result row; Problems explain why.
var ErrNoResults = errors.New("perftest printed no results")

// ErrRunFailed: a work request completed with an error ("Completion with
// error", "Failed status N"); whatever numbers were printed are not a
// measurement.
var ErrRunFailed = errors.New("the perftest run failed")

// wcStatus names rdma-core's ibv_wc_status values, which perftest prints
// as "Failed status N".
var wcStatus = []string{"IBV_WC_SUCCESS", "IBV_WC_LOC_LEN_ERR", "IBV_WC_LOC_QP_OP_ERR", "IBV_WC_LOC_EEC_OP_ERR",
	"IBV_WC_LOC_PROT_ERR", "IBV_WC_WR_FLUSH_ERR", "IBV_WC_MW_BIND_ERR", "IBV_WC_BAD_RESP_ERR", "IBV_WC_LOC_ACCESS_ERR",
	"IBV_WC_REM_INV_REQ_ERR", "IBV_WC_REM_ACCESS_ERR", "IBV_WC_REM_OP_ERR", "IBV_WC_RETRY_EXC_ERR",
	"IBV_WC_RNR_RETRY_EXC_ERR", "IBV_WC_LOC_RDD_VIOL_ERR", "IBV_WC_REM_INV_RD_REQ_ERR", "IBV_WC_REM_ABORT_ERR",
	"IBV_WC_INV_EECN_ERR", "IBV_WC_INV_EEC_STATE_ERR", "IBV_WC_FATAL_ERR", "IBV_WC_RESP_TIMEOUT_ERR", "IBV_WC_GENERAL_ERR"}

// mibToGb converts perftest's MiB/s to Gb/s: 2^20 bytes × 8 / 10^9.
// perftest labels it [MB/sec] before 24.07 and [MiB/sec] since; both are
// 2^20 bytes per second.
const mibToGb = 1 << 20 * 8 / 1e9

// Parse reads a run's output: the text report, followed (after
// JSONMarker, see WithJSON) by the JSON report when perftest wrote one.
// The JSON results are used when they parse; the text table otherwise.
func Parse(out []byte) (*Report, error) {
	text, jsonPart, hasJSON := strings.Cut(string(out), JSONMarker)
	rep, textErr := parseText([]byte(text))
	if hasJSON && strings.TrimSpace(jsonPart) != "" {
		gbits := rep == nil || !rep.mib
		if j, err := parseJSON([]byte(jsonPart), gbits); err == nil && (len(j.Latency) > 0 || len(j.Bandwidth) > 0) {
			if rep != nil {
				j.Problems = rep.Problems
			}
			return j.Report, nil
		}
	}
	if textErr != nil {
		return nil, textErr
	}
	return rep.Report, nil
}

// parsed carries the unit the text header used.
type parsed struct {
	*Report
	mib bool
}

// ParseJSON reads perftest's --out_json file, in the legacy unquoted form
// or standard JSON. Bandwidth is in Gb/s when the run used --report_gbits
// (gbits true), else MiB/s, which is converted.
func ParseJSON(data []byte, gbits bool) (*Report, error) {
	p, err := parseJSON(data, gbits)
	if err != nil {
		return nil, err
	}
	return p.Report, nil
}

func parseJSON(data []byte, gbits bool) (*parsed, error) {
	doc, err := parseRelaxed(string(data))
	if err != nil {
		return nil, err
	}
	rep := &parsed{Report: &Report{GIDIndex: -1, TOS: -1}}
	for _, f := range doc {
		switch {
		case f.key == "test_info" && f.isObj:
			rep.Title, _ = f.get("test")
			rep.Device, _ = f.get("Device")
			rep.LinkType, _ = f.get("Link_type")
			if v, ok := f.get("Mtu"); ok {
				rep.MTU, _ = strconv.Atoi(v)
			}
			if v, ok := f.get("GID_index"); ok {
				rep.GIDIndex = atoiOr(v, -1)
			}
			if v, ok := f.get("TOS"); ok {
				rep.TOS = atoiOr(v, -1)
			}
		case strings.HasPrefix(f.key, "results") && f.isObj:
			if err := rep.addJSONResult(f, gbits); err != nil {
				return nil, err
			}
		}
	}
	return rep, nil
}

func (rep *parsed) addJSONResult(f field, gbits bool) error {
	num := func(key string) (float64, error) {
		v, ok := f.get(key)
		if !ok {
			return 0, fmt.Errorf("perftest JSON results: no %s", key)
		}
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return 0, fmt.Errorf("perftest JSON results: %s %q: %w", key, v, err)
		}
		return x, nil
	}
	size, err := num("MsgSize")
	if err != nil {
		return err
	}
	iters, err := num("n_iterations")
	if err != nil {
		return err
	}
	if _, ok := f.get("BW_average"); ok {
		var vals [3]float64
		for i, k := range []string{"BW_peak", "BW_average", "MsgRate"} {
			if vals[i], err = num(k); err != nil {
				return err
			}
		}
		if !gbits {
			vals[0], vals[1] = vals[0]*mibToGb, vals[1]*mibToGb
		}
		rep.Bandwidth = append(rep.Bandwidth, Bandwidth{Bytes: int(size), Iterations: int(iters), PeakGbps: vals[0], AvgGbps: vals[1], MsgRateMpps: vals[2]})
		return nil
	}
	if _, ok := f.get("tps_average"); ok {
		avg, err := num("t_avg")
		if err != nil {
			return err
		}
		tps, err := num("tps_average")
		if err != nil {
			return err
		}
		rep.Latency = append(rep.Latency, Latency{Bytes: int(size), Iterations: int(iters), AvgUs: avg, TypicalUs: avg, TPS: tps})
		return nil
	}
	var vals [7]float64
	for i, k := range []string{"t_min", "t_max", "t_typical", "t_avg", "t_stdev", "percentile_99", "percentile_99.9"} {
		if vals[i], err = num(k); err != nil {
			return err
		}
	}
	rep.Latency = append(rep.Latency, Latency{Bytes: int(size), Iterations: int(iters), MinUs: vals[0], MaxUs: vals[1],
		TypicalUs: vals[2], AvgUs: vals[3], StdevUs: vals[4], P99Us: vals[5], P999Us: vals[6]})
	return nil
}

func atoiOr(s string, d int) int {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return d
	}
	return n
}

// problemWords mark perftest's error lines.
var problemWords = []string{"Couldn't", "Couldnt", "Failed", "failed", "Unable", "ERROR", "error", "Error", "Conflicting CPU frequency", "not supported", "Completion with error"}

// ParseText reads perftest's text report: the parameter block
// ("Device : mlx5_0", "GID index : 3", "Mtu : 4096[B]"), then the table
// under the "#bytes" header, whose columns depend on the test:
//
//	latency:  #bytes #iterations t_min t_max t_typical t_avg t_stdev 99% 99.9%  (usec)
//	duration: #bytes #iterations t_avg tps                                      (usec)
//	bandwidth:#bytes #iterations BW peak BW average MsgRate                     (Gb/sec or MB/sec, Mpps)
//
// Bandwidth in MB/sec (MiB/s) is converted to Gb/s. Without a result row
// the error wraps ErrNoResults with perftest's own error lines.
func ParseText(out []byte) (*Report, error) {
	p, err := parseText(out)
	if p == nil {
		return nil, err
	}
	return p.Report, err
}

func parseText(out []byte) (*parsed, error) {
	rep := &parsed{Report: &Report{GIDIndex: -1, TOS: -1}}
	const (
		none = iota
		lat
		latDur
		bw
	)
	mode, qos, dashes := none, false, 0
	for _, raw := range strings.Split(string(out), "\n") {
		line := strings.TrimRight(raw, "\r")
		trim := strings.TrimSpace(line)
		if trim == "" {
			continue
		}
		if strings.HasPrefix(trim, "----") {
			dashes++
			if mode != none && (len(rep.Latency) > 0 || len(rep.Bandwidth) > 0) {
				mode = none
			}
			continue
		}
		if strings.HasPrefix(trim, "#bytes") {
			switch {
			case strings.Contains(trim, "[cycles]"):
				return nil, fmt.Errorf("perftest reported latency in CPU cycles (-C); run it without -C")
			case strings.Contains(trim, "t_min"):
				mode = lat
			case strings.Contains(trim, "tps"):
				mode = latDur
			case strings.Contains(trim, "BW peak") || strings.Contains(trim, "BW average"):
				mode = bw
				rep.mib = strings.Contains(trim, "[MB/sec]") || strings.Contains(trim, "[MiB/sec]")
			}
			qos = strings.Contains(trim, "#sl")
			continue
		}
		if mode != none {
			if f := strings.Fields(trim); len(f) > 0 {
				if _, err := strconv.Atoi(f[0]); err == nil {
					if qos && len(f) > 1 {
						f = append(f[:1], f[2:]...)
					}
					if err := rep.addRow(mode == lat, mode == latDur, f); err != nil {
						return nil, err
					}
					continue
				}
			}
		}
		if dashes == 1 && rep.Title == "" && !strings.Contains(trim, ":") {
			rep.Title = trim
			continue
		}
		if isProblem(trim) {
			rep.Problems = append(rep.Problems, trim)
			continue
		}
		for _, kv := range headerFields(trim) {
			rep.header(kv[0], kv[1])
		}
	}
	results := len(rep.Latency) > 0 || len(rep.Bandwidth) > 0
	if failed := rep.failure(); failed != "" {
		if !results {
			return rep, fmt.Errorf("%w (%w): %s", ErrRunFailed, ErrNoResults, failed)
		}
		return rep, fmt.Errorf("%w, its results are not a measurement: %s", ErrRunFailed, failed)
	}
	if !results {
		if len(rep.Problems) > 0 {
			return rep, fmt.Errorf("%w: %s", ErrNoResults, strings.Join(rep.Problems, "; "))
		}
		return rep, ErrNoResults
	}
	return rep, nil
}

// failure describes a failed work completion among the problem lines,
// naming the ibv_wc_status perftest printed as a number; "" when the run
// did not fail that way.
func (rep *parsed) failure() string {
	failed := false
	for _, p := range rep.Problems {
		if strings.Contains(p, "Completion with error") || strings.Contains(p, "Failed status") {
			failed = true
		}
	}
	if !failed {
		return ""
	}
	msg := strings.Join(rep.Problems, "; ")
	for _, p := range rep.Problems {
		if rest, ok := strings.CutPrefix(p, "Failed status "); ok {
			num, _, _ := strings.Cut(rest, ":")
			if n, err := strconv.Atoi(num); err == nil && n >= 0 && n < len(wcStatus) {
				msg += " (status " + num + " is " + wcStatus[n] + ")"
			}
		}
	}
	return msg
}

// headerFields reads the "key : value" pairs of one parameter line.
// perftest prints two per line separated by tabs ("Dual-port : OFF\t\t
// Device : mlx5_0"); pasted output often has the tabs turned into spaces,
// so runs of two or more blanks separate pairs too. A key may be padded
// with blanks before its colon ("Mtu             : 4096[B]").
func headerFields(line string) [][2]string {
	var out [][2]string
	key := ""
	for _, chunk := range fieldSplit.Split(line, -1) {
		chunk = strings.TrimSpace(chunk)
		switch {
		case chunk == "":
		case strings.HasPrefix(chunk, ":"):
			if key != "" {
				out = append(out, [2]string{key, strings.TrimSpace(chunk[1:])})
				key = ""
			}
		default:
			k, v, ok := strings.Cut(chunk, ":")
			if !ok {
				key = chunk // the value follows after the padding
				continue
			}
			if v = strings.TrimSpace(v); v == "" {
				key = strings.TrimSpace(k)
				continue
			}
			out = append(out, [2]string{strings.TrimSpace(k), v})
			key = ""
		}
	}
	return out
}

var fieldSplit = regexp.MustCompile(`\t+| {2,}`)

func isProblem(line string) bool {
	for _, w := range problemWords {
		if strings.Contains(line, w) {
			return true
		}
	}
	return false
}

func (rep *parsed) header(k, v string) {
	switch k {
	case "Device":
		rep.Device = v
	case "Link type":
		rep.LinkType = v
	case "Mtu":
		rep.MTU = atoiOr(strings.TrimSuffix(v, "[B]"), 0)
	case "GID index":
		rep.GIDIndex = atoiOr(v, -1)
	case "TOS":
		rep.TOS = atoiOr(v, -1)
	}
}

func (rep *parsed) addRow(latency, duration bool, f []string) error {
	nums := make([]float64, 0, len(f))
	for _, s := range f {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("perftest result row %q: %q is not a number", strings.Join(f, " "), s)
		}
		nums = append(nums, x)
	}
	need := 5
	switch {
	case latency:
		need = 9
	case duration:
		need = 4
	}
	if len(nums) < need {
		return fmt.Errorf("perftest result row %q: %d columns, want %d", strings.Join(f, " "), len(nums), need)
	}
	size, iters := int(nums[0]), int(nums[1])
	switch {
	case latency:
		rep.Latency = append(rep.Latency, Latency{Bytes: size, Iterations: iters, MinUs: nums[2], MaxUs: nums[3],
			TypicalUs: nums[4], AvgUs: nums[5], StdevUs: nums[6], P99Us: nums[7], P999Us: nums[8]})
	case duration:
		rep.Latency = append(rep.Latency, Latency{Bytes: size, Iterations: iters, AvgUs: nums[2], TypicalUs: nums[2], TPS: nums[3]})
	default:
		peak, avg := nums[2], nums[3]
		if rep.mib {
			peak, avg = peak*mibToGb, avg*mibToGb
		}
		rep.Bandwidth = append(rep.Bandwidth, Bandwidth{Bytes: size, Iterations: iters, PeakGbps: peak, AvgGbps: avg, MsgRateMpps: nums[4]})
	}
	return nil
}
