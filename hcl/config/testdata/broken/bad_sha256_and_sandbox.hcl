axon {
  sandbox = "jail"
}

provider "local" {
  preset  = "ollama"
  sha256  = "abc123"
  sandbox = "ful"
}

display "epd" {
  sha256 = "zz9c8f5e8e7d2c2f0e3b1b7a4f0f5d6c1b2a3948576655443322110099887766"
}

chain "default" {
  providers = [provider.local]
}
