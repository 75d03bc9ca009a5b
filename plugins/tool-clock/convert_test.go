package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestConvertTime(t *testing.T) {
	t.Parallel()
	berlin := func(tm, abbr, off, wd string) instant {
		return instant{Time: tm, Weekday: wd, Zone: "Europe/Berlin", Abbreviation: abbr, UTCOffset: off}
	}
	newYork := func(tm, abbr, off, wd string) instant {
		return instant{Time: tm, Weekday: wd, Zone: "America/New_York", Abbreviation: abbr, UTCOffset: off}
	}
	tests := []struct {
		name     string
		now      time.Time
		input    string
		want     convertOutput
		wantNote string // substring of the note, when one is expected
		wantErr  string // substring of the error text
	}{
		{
			name:  "RFC 3339 in UTC",
			input: `{"time":"2026-07-01T12:00:00Z","to":"Asia/Tokyo"}`,
			want: convertOutput{
				From: instant{Time: "2026-07-01T12:00:00Z", Weekday: "Wednesday", Zone: "UTC", Abbreviation: "UTC", UTCOffset: "+00:00"},
				To:   instant{Time: "2026-07-01T21:00:00+09:00", Weekday: "Wednesday", Zone: "Asia/Tokyo", Abbreviation: "JST", UTCOffset: "+09:00"},
			},
		},
		{
			name:  "offset matching from keeps from's name",
			input: `{"time":"2026-07-01T12:00:00+02:00","from":"Europe/Berlin","to":"America/New_York"}`,
			want: convertOutput{
				From: berlin("2026-07-01T12:00:00+02:00", "CEST", "+02:00", "Wednesday"),
				To:   newYork("2026-07-01T06:00:00-04:00", "EDT", "-04:00", "Wednesday"),
			},
		},
		{
			name:  "offset wins over from",
			input: `{"time":"2026-07-01T12:00:00+05:30","from":"Europe/Berlin","to":"UTC"}`,
			want: convertOutput{
				From: instant{Time: "2026-07-01T12:00:00+05:30", Weekday: "Wednesday", Zone: "UTC+05:30", Abbreviation: "UTC+05:30", UTCOffset: "+05:30"},
				To:   instant{Time: "2026-07-01T06:30:00Z", Weekday: "Wednesday", Zone: "UTC", Abbreviation: "UTC", UTCOffset: "+00:00"},
			},
		},
		{
			name:  "wall time in the configured zone, winter",
			input: `{"time":"2026-01-15 09:30","to":"America/New_York"}`,
			want: convertOutput{
				From: berlin("2026-01-15T09:30:00+01:00", "CET", "+01:00", "Thursday"),
				To:   newYork("2026-01-15T03:30:00-05:00", "EST", "-05:00", "Thursday"),
			},
		},
		{
			name:  "wall time with T and seconds, named from",
			input: `{"time":"2026-01-15T09:30:15","from":"America/New_York","to":"Europe/Berlin"}`,
			want: convertOutput{
				From: newYork("2026-01-15T09:30:15-05:00", "EST", "-05:00", "Thursday"),
				To:   berlin("2026-01-15T15:30:15+01:00", "CET", "+01:00", "Thursday"),
			},
		},
		{
			name:  "time of day takes today's date in from, not in UTC",
			now:   time.Date(2026, 11, 29, 23, 30, 0, 0, time.UTC), // already the 30th in Tokyo
			input: `{"time":"08:00","from":"Asia/Tokyo","to":"UTC"}`,
			want: convertOutput{
				From: instant{Time: "2026-11-30T08:00:00+09:00", Weekday: "Monday", Zone: "Asia/Tokyo", Abbreviation: "JST", UTCOffset: "+09:00"},
				To:   instant{Time: "2026-11-29T23:00:00Z", Weekday: "Sunday", Zone: "UTC", Abbreviation: "UTC", UTCOffset: "+00:00"},
			},
		},
		{
			name:  "ambiguous wall time converts the first and says so",
			input: `{"time":"2026-10-25 02:30","to":"UTC"}`,
			want: convertOutput{
				From: berlin("2026-10-25T02:30:00+02:00", "CEST", "+02:00", "Sunday"),
				To:   instant{Time: "2026-10-25T00:30:00Z", Weekday: "Sunday", Zone: "UTC", Abbreviation: "UTC", UTCOffset: "+00:00"},
			},
			wantNote: "the second is 2026-10-25T02:30:00+01:00",
		},
		{
			name:    "wall time skipped by daylight saving",
			input:   `{"time":"2026-03-29 02:30","to":"UTC"}`,
			wantErr: "does not exist in Europe/Berlin",
		},
		{name: "missing to", input: `{"time":"09:00"}`, wantErr: "required"},
		{name: "unknown to", input: `{"time":"09:00","to":"Nowhere"}`, wantErr: "unknown time zone"},
		{name: "unknown from", input: `{"time":"09:00","from":"Nowhere","to":"UTC"}`, wantErr: "unknown time zone"},
		{name: "unreadable time", input: `{"time":"tomorrow at nine","to":"UTC"}`, wantErr: "cannot read time"},
		{name: "out of range", input: `{"time":"2026-02-30 09:00","to":"UTC"}`, wantErr: "cannot read time"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			now := tt.now
			if now.IsZero() {
				now = fixedNow
			}
			text, isErr := call(t, newClock(t, `{"zone":"Europe/Berlin"}`, now), toolConvert, tt.input)
			if tt.wantErr != "" {
				if !isErr || !strings.Contains(text, tt.wantErr) {
					t.Fatalf("got %q (error %v), want an error containing %q", text, isErr, tt.wantErr)
				}
				return
			}
			if isErr {
				t.Fatalf("unexpected error result: %s", text)
			}
			var got convertOutput
			if err := json.Unmarshal([]byte(text), &got); err != nil {
				t.Fatalf("result is not JSON: %v: %s", err, text)
			}
			if !strings.Contains(got.Note, tt.wantNote) || (tt.wantNote == "") != (got.Note == "") {
				t.Errorf("note %q, want one containing %q", got.Note, tt.wantNote)
			}
			got.Note = ""
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("convert_time (-want +got):\n%s", diff)
			}
		})
	}
}
