package daemon

import "github.com/axonhq/axon/host/supervisor"

// Tools returns the configured tool plugin instances by tool block name,
// for the session loop. None is started by this call.
func (b *Daemon) Tools() map[string]*supervisor.Instance {
	cfg := b.Config()
	out := make(map[string]*supervisor.Instance, len(cfg.Tools))
	for _, t := range cfg.Tools {
		if in, err := b.sup.Instance(t.Name); err == nil {
			out[t.Name] = in
		}
	}
	return out
}
