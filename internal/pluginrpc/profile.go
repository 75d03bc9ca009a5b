package pluginrpc

// ProfileDirEnv names the variable through which the host asks a plugin
// process for pprof profiles: its value is a directory, writable inside the
// plugin's jail, where sdk/serve writes cpu.pprof and allocs.pprof when the
// plugin stops. The host sets it only when the operator asked for plugin
// profiles (axon serve --plugin-profiles DIR); unset, nothing is profiled.
const ProfileDirEnv = "AXON_PLUGIN_PROFILE_DIR"
