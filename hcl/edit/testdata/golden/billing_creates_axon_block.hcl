# No axon block: every host setting is the default.

axon {
  billing {
    enabled = true
  }
}

# The only model.
provider "local" {
  preset = "ollama"
}

chain "default" {
  providers = [provider.local]
}
