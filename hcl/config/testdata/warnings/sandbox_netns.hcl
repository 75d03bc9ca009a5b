provider "local" {
  preset  = "ollama"
  sandbox = "netns"
}

chain "default" {
  providers = [provider.local]
}
