axon {
  listen = "7070"
}

provider "local" {
  preset         = "ollama"
  base_url       = "http://user:pass@127.0.0.1:11434/v1"
  tier           = "cheap"
  context_window = -5
  good_at        = "chat"

  pricing {
    input_per_mtok = -1
  }

  egress {
    allow              = ["https://ok.example.com", "ftp://files.example.com", "example.com:99999", "https://x.example.com/path"]
    max_response_bytes = 1.5
  }
}

chain "default" {
  providers                     = [provider.local]
  allow_content_filter_fallback = "sometimes"
}

vault {
  dir = "~someone/vault"
}
