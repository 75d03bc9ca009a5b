# Everything on one line that can be.
axon { listen = "127.0.0.1:7070" } # loopback only

provider "local" { preset = "ollama" }

provider "gpu" {
  # What the GPU costs to run.
  pricing { input_per_mtok = 1 } # a guess

  plugin = "ollama" # written last: new attributes still go first
}

chain "default" {
  providers = [provider.local, provider.gpu]
}
