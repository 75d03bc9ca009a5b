package sdk

import (
	"regexp"
	"strings"
)

// An error label is at most maxLabel bytes of words of at most maxLabelWord
// letters; the longest codes providers document are about 40 bytes, their
// longest words about 15 letters.
const (
	maxLabel     = 48
	maxLabelWord = 24
)

// labelWord is one word of a code: lowercase, UPPERCASE, Capitalized, or
// camelCase ("modelNotFound", "ThrottlingException", "APIError",
// "InvalidURL": humps of capitals each followed by at least two lowercase
// letters), or a number of up to four digits (an HTTP status, Z.ai's
// "1113"). Letters and digits mixed in one word, or single lowercase letters
// between capitals ("AbCdEf", "eyJhbGciOi"), are the shape of a random
// token, not of a word.
var labelWord = regexp.MustCompile(`^(?:[a-z]+|[A-Z]+|[A-Z][a-z]+|[a-z]*(?:[A-Z]+[a-z]{2,})+[A-Z]*|[0-9]{1,4})$`)

// keyPrefixes start credentials: a string that starts with one is never a
// label, however tame the rest reads ("sk-proj-...", "AIzaSy...").
var keyPrefixes = [...]string{"sk-", "sk_", "AIza", "xai-", "gsk_", "ghp_", "github_pat_", "nvapi-", "pk-", "rk-"}

// ErrorLabel returns s when it reads as an error code or type a provider
// documents (e.g. "rate_limit_exceeded", "invalid_request_error",
// "RESOURCE_EXHAUSTED", "context_length_exceeded", "model_not_found",
// "insufficient_quota", "overloaded_error", "429"), and "" for anything
// else: too long, unusual characters, or high-entropy like a key or token.
// Plugins use it before putting an upstream's code into an error message,
// which may end up in logs, trails and WAL files.
//
// A code is at most 48 bytes of non-empty words joined by '_', '-' or '.',
// each word at most 24 bytes and shaped as labelWord says, and does not
// start with a known API key prefix.
func ErrorLabel(s string) string {
	if s == "" || len(s) > maxLabel {
		return ""
	}
	for _, p := range keyPrefixes {
		if strings.HasPrefix(s, p) {
			return ""
		}
	}
	start := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] != '_' && s[i] != '-' && s[i] != '.' {
			continue
		}
		if w := s[start:i]; len(w) > maxLabelWord || !labelWord.MatchString(w) {
			return ""
		}
		start = i + 1
	}
	return s
}
