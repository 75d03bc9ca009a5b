provider "local" {
  preset = "ollama"
}

chain "default" {
  providers = [provider.local]
  retry {
    atempts = 3
  }
}
