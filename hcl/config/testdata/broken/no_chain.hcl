provider "local" {
  preset = "ollama"
}
