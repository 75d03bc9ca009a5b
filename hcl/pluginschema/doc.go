// Package pluginschema decodes the plugin-owned part of a configuration block
// against the schema the plugin declares in its Info, following HCL's
// "ahead-of-time evaluation" pattern: the host evaluates HCL and hands the
// plugin only constant JSON values, type-checked and with defaults applied.
//
// It knows nothing of axon's own attributes (credential, sandbox, ...): the
// caller strips those from the body first. It must never resolve a credential
// or read anything but the HCL body it is given.
package pluginschema
