package config

import (
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
)

// Media is how the host fetches the images and documents a client gave by
// URL, for a provider that takes only inline data (host/media):
// axon { media { ... } }. Fetching public https URLs is on unless written
// off; a zero limit takes host/media's default.
type Media struct {
	Fetch bool
	// Allow lists origins that may be fetched although they resolve to a
	// loopback, private or other non-public address (and, written
	// http://, over plain http). No wildcards.
	Allow           []string
	MaxPartBytes    int64
	MaxRequestBytes int64
	Timeout         time.Duration
	DefRange        hcl.Range // zero when the axon block has no media block
}

type rawMedia struct {
	Fetch           hcl.Expression `hcl:"fetch,optional"`
	Allow           hcl.Expression `hcl:"allow,optional"`
	MaxPartBytes    hcl.Expression `hcl:"max_part_bytes,optional"`
	MaxRequestBytes hcl.Expression `hcl:"max_request_bytes,optional"`
	Timeout         hcl.Expression `hcl:"timeout,optional"`
	DefRange        hcl.Range      `hcl:",def_range"`
}

func (r *reader) media(raw *rawMedia) Media {
	m := Media{Fetch: true}
	if raw == nil {
		return m
	}
	m.DefRange = raw.DefRange
	if on := r.strictBool(raw.Fetch, "fetch"); on != nil {
		m.Fetch = *on
	}
	if allow, ok := r.strs(raw.Allow, "allow"); ok {
		for _, a := range allow {
			err := checkOrigin(a)
			if err == nil && strings.Contains(a, "*") {
				r.errorf(raw.Allow.Range(), "Invalid media allow entry", "%q: a media allow entry names one origin; wildcards are not taken here.", a)
				continue
			}
			if err != nil {
				r.errorf(raw.Allow.Range(), "Invalid media allow entry", "%q: %s. Entries look like \"http://127.0.0.1:8080\", \"nas.lan\" or \"nas.lan:8443\" (https).", a, err)
				continue
			}
			m.Allow = append(m.Allow, a)
		}
	}
	if n, ok := r.integer(raw.MaxPartBytes, "max_part_bytes", 1, 1<<40); ok {
		m.MaxPartBytes = n
	}
	if n, ok := r.integer(raw.MaxRequestBytes, "max_request_bytes", 1, 1<<40); ok {
		m.MaxRequestBytes = n
	}
	if d, ok := r.duration(raw.Timeout, "timeout", false); ok {
		m.Timeout = d
	}
	return m
}

func mediaOf(raw *rawAxon) *rawMedia {
	if raw == nil {
		return nil
	}
	return raw.Media
}
