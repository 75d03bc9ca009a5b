provider "local" {
  preset = "ollama"
}

chain "default" {
  providers = []
}

chain "other" {}

vault {}
