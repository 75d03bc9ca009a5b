provider "local" {
  preset = "ollama"

  timeouts {
    first_token = "soon"
    idle        = "0s"
  }

  egress {
    connect_timeout  = 10
    response_timeout = "-1m"
  }
}

chain "default" {
  providers = [provider.local]

  retry {
    attempts        = 0
    backoff         = "500"
    max_retry_after = "20s"
  }
}
