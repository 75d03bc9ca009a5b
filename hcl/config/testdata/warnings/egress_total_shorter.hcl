provider "local" {
  preset = "ollama"

  egress {
    total_timeout = "1m" # the preset's response_timeout is 3m
  }
}

tool "fetch" {
  egress {
    allow            = ["https://example.com"]
    response_timeout = "1h" # longer than the default total_timeout
  }
}

chain "default" {
  providers = [provider.local]
}
