provider "local" {
  preset = "ollama"
}

chain "offline" {
  providers = [provider.local]
}
