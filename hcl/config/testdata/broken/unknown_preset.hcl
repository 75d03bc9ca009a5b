provider "local" {
  preset = "olama"
}

chain "default" {
  providers = [provider.local]
}
