provider "local" {
  preset = "ollama"

chain "default" {
  providers = [provider.local]
}
