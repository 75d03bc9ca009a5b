provider "local" {
  preset = "ollama"

  egress {
    total_timeout        = "forever"
    request_idle_timeout = "0s"
    max_request_bytes    = 0
    max_concurrent       = 5000
  }
}

tool "fetch" {
  egress {
    allow             = ["https://example.com"]
    max_request_bytes = "lots"
    max_concurrent    = 2.5
  }
}

chain "default" {
  providers = [provider.local]
}
