// Package junit writes JUnit XML, the test-report format CI systems
// (GitHub Actions reporters, GitLab, Jenkins, Azure DevOps) show natively:
// testsuites of testcases, each passing, failed (a finding the run judges
// wrong) or in error (the run could not check it).
package junit

import (
	"encoding/xml"
	"io"
	"time"
)

// Suites is the document root.
type Suites struct {
	XMLName  xml.Name `xml:"testsuites"`
	Name     string   `xml:"name,attr"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Skipped  int      `xml:"skipped,attr"`
	Time     float64  `xml:"time,attr"`
	Suites   []Suite  `xml:"testsuite"`
}

// Suite is one run of one command.
type Suite struct {
	Name      string     `xml:"name,attr"`
	Tests     int        `xml:"tests,attr"`
	Failures  int        `xml:"failures,attr"`
	Errors    int        `xml:"errors,attr"`
	Skipped   int        `xml:"skipped,attr"`
	Time      float64    `xml:"time,attr"`
	Timestamp string     `xml:"timestamp,attr,omitempty"`
	Props     []Property `xml:"-"`
	// Properties is Props as written (absent when there are none).
	Properties *Properties `xml:"properties,omitempty"`
	Cases      []Case      `xml:"testcase"`
}

// Properties wraps a suite's properties.
type Properties struct {
	Props []Property `xml:"property"`
}

// Property is a name and value about the suite (fabric, commit).
type Property struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// Case is one checked thing: a device, a host pair, a diagnostic.
type Case struct {
	Name      string   `xml:"name,attr"`
	Classname string   `xml:"classname,attr"`
	File      string   `xml:"file,attr,omitempty"`
	Line      int      `xml:"line,attr,omitempty"`
	Time      float64  `xml:"time,attr"`
	Failure   *Problem `xml:"failure,omitempty"`
	Error     *Problem `xml:"error,omitempty"`
	Skipped   *Problem `xml:"skipped,omitempty"`
	SystemOut string   `xml:"system-out,omitempty"`
}

// Problem is a failure, error or skip: a one-line message and the detail.
type Problem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// Add appends a case and keeps the suite's counts.
func (s *Suite) Add(c Case) {
	s.Cases = append(s.Cases, c)
	s.Tests++
	switch {
	case c.Error != nil:
		s.Errors++
	case c.Failure != nil:
		s.Failures++
	case c.Skipped != nil:
		s.Skipped++
	}
}

// Write writes the suites as one document, totals summed, with the time
// of the run on each suite.
func Write(w io.Writer, name string, at time.Time, suites ...Suite) error {
	doc := Suites{Name: name}
	for _, s := range suites {
		if len(s.Props) > 0 {
			s.Properties = &Properties{Props: s.Props}
		}
		if s.Timestamp == "" && !at.IsZero() {
			s.Timestamp = at.UTC().Format("2006-01-02T15:04:05")
		}
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Errors += s.Errors
		doc.Skipped += s.Skipped
		doc.Time += s.Time
		doc.Suites = append(doc.Suites, s)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
