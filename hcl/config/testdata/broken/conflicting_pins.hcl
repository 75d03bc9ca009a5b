provider "a" {
  preset = "ollama"
  sha256 = "9c8f5e8e7d2c2f0e3b1b7a4f0f5d6c1b2a3948576655443322110099887766aa"
}

provider "b" {
  preset = "ollama"
  model  = "llama3.2:1b"
  sha256 = "00000000000000000000000000000000000000000000000000000000000000ff"
}

chain "default" {
  providers = [provider.a, provider.b]
}
