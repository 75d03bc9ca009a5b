package main

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNow(t *testing.T) {
	t.Parallel()
	c := newClock(t, `{"zone":"Europe/Berlin"}`, fixedNow)
	tests := []struct {
		name    string
		input   string
		want    instant
		wantErr bool
	}{
		{
			name:  "configured zone",
			input: `{}`,
			want:  instant{Time: "2026-11-29T14:03:04+01:00", Weekday: "Sunday", Zone: "Europe/Berlin", Abbreviation: "CET", UTCOffset: "+01:00"},
		},
		{
			name:  "no input at all",
			input: ``,
			want:  instant{Time: "2026-11-29T14:03:04+01:00", Weekday: "Sunday", Zone: "Europe/Berlin", Abbreviation: "CET", UTCOffset: "+01:00"},
		},
		{
			name:  "named zone across the date line",
			input: `{"zone":"Pacific/Auckland"}`,
			want:  instant{Time: "2026-11-30T02:03:04+13:00", Weekday: "Monday", Zone: "Pacific/Auckland", Abbreviation: "NZDT", UTCOffset: "+13:00"},
		},
		{
			name:  "half-hour offset",
			input: `{"zone":"Asia/Kolkata"}`,
			want:  instant{Time: "2026-11-29T18:33:04+05:30", Weekday: "Sunday", Zone: "Asia/Kolkata", Abbreviation: "IST", UTCOffset: "+05:30"},
		},
		{
			name:  "UTC",
			input: `{"zone":"UTC"}`,
			want:  instant{Time: "2026-11-29T13:03:04Z", Weekday: "Sunday", Zone: "UTC", Abbreviation: "UTC", UTCOffset: "+00:00"},
		},
		{name: "unknown zone", input: `{"zone":"Europe/Atlantis"}`, wantErr: true},
		{name: "misspelt argument", input: `{"timezone":"UTC"}`, wantErr: true},
		{name: "not an object", input: `"UTC"`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			text, isErr := call(t, c, toolNow, tt.input)
			if isErr != tt.wantErr {
				t.Fatalf("error %v, want %v: %s", isErr, tt.wantErr, text)
			}
			if tt.wantErr {
				return
			}
			var got instant
			if err := json.Unmarshal([]byte(text), &got); err != nil {
				t.Fatalf("result is not JSON: %v: %s", err, text)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("now (-want +got):\n%s", diff)
			}
		})
	}
}
