package intent

// Loader diagnostic codes. Lint codes (RF1xx) live in validators/lint; both
// share one table in docs/intent.md.
const (
	CodeSyntax          = "RF001" // YAML syntax error
	CodeUnknownField    = "RF002" // a key the schema does not have
	CodeWrongType       = "RF003" // a value of the wrong YAML type
	CodeDuplicateKey    = "RF004" // the same key twice in one mapping
	CodeMissing         = "RF005" // a required field is absent
	CodeAPIVersion      = "RF006" // apiVersion or kind not supported
	CodeDuplicateDevice = "RF007" // a device or group defined twice
	CodeInlineSecret    = "RF008" // a password or token written into the intent
	CodeBadEnum         = "RF009" // a value outside the allowed set
	CodeBadAddress      = "RF010" // management address is not host or host:port
	CodeBadPortRange    = "RF011" // port list or range does not parse
	CodeBadUnit         = "RF012" // size, length or duration without a known unit
	CodeUnknownRef      = "RF013" // a group, device or port that is not defined
	CodeNoInput         = "RF014" // no intent files found, or one that is not read (not a regular file, a link out of its folder)
	CodeDuplicateField  = "RF015" // a fabric-wide section set in two files
	CodeUnsafeName      = "RF016" // a name outside the safe character set (docs/intent.md, "Names")
	CodeLimit           = "RF017" // a file, the fabric, its devices or ports over a limit (docs/intent.md, "Limits")
)
