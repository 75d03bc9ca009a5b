// Package faces turns the chain's lifecycle into frames on every configured
// display: thinking when a turn starts, speaking when the answer starts to
// flow, happy and then idle after, degraded ("can't think right now") when a
// chain is exhausted, sad when an answer breaks off.
//
// It must never slow down or fail a turn. The chain's observer calls only
// store the newest frame; one worker per display draws it when the panel is
// ready. Frames are coalesced (the latest wins, nothing queues without bound)
// and rate limited per panel, and a slow, failing or crashed display plugin
// only costs its own worker time.
package faces
