# No axon block: every host setting is the default.

# The only model.
provider "local" {
  preset = "ollama"
}

chain "default" {
  providers = [provider.local]
}
