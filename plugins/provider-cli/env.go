package main

import (
	"slices"
)

// childEnv is the client's whole environment: HOME and TMPDIR as the
// plugin has them (HOME is the block's home, where the client's login
// lives), PATH from path, HTTPS_PROXY and https_proxy when the host offers
// a proxy, then env; scrub_env removes names last, from all of these.
// Nothing else of the plugin's environment passes (go-plugin's PLUGIN_*
// variables, anything a sandbox left). getenv reads the plugin's own.
func (s *settings) childEnv(getenv func(string) string, proxy string) []string {
	vars := map[string]string{"PATH": s.path}
	for _, k := range []string{"HOME", "TMPDIR"} {
		if v := getenv(k); v != "" {
			vars[k] = v
		}
	}
	if proxy != "" {
		vars["HTTPS_PROXY"], vars["https_proxy"] = proxy, proxy
	}
	for k, v := range s.env {
		vars[k] = v
	}
	env := make([]string, 0, len(vars))
	for k, v := range vars {
		if !s.scrub[k] {
			env = append(env, k+"="+v)
		}
	}
	slices.Sort(env)
	return env
}
