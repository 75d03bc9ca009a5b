# axon's built-in configuration, used when there is no --config, no
# $AXON_CONFIG, no ~/.config/axon/axon.hcl and no $AXON_CHAIN.
#
# Local-first: it needs no key, only an Ollama server on this machine
# ("ollama pull qwen2.5:3b"). Copy this file to ~/.config/axon/axon.hcl to
# change it, or set AXON_CHAIN="glm,ollama" to chain presets.

provider "ollama" {
  preset = "ollama"
}

chain "default" {
  providers = [provider.ollama]
}
