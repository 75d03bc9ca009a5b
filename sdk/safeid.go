package sdk

// SafeID returns s when it is a short identifier (at most 48 letters,
// digits, '_', '-' and '.'), fit to go into a tool call id or a message,
// and "" otherwise. Ids an upstream sends are its to choose; pass one
// through SafeID before building on it.
func SafeID(s string) string {
	if len(s) > 48 {
		return ""
	}
	for _, r := range s {
		if !(r == '_' || r == '-' || r == '.' || '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') {
			return ""
		}
	}
	return s
}
