# A workstation: a subscription model first, a metered frontier model as
# fallback, and a local model that keeps answering when the network is down.
#
#   axon check --config examples/workstation.hcl
#   axon serve --config examples/workstation.hcl

axon {
  listen      = "127.0.0.1:7070"
  unix_socket = "~/.local/state/axon/axon.sock"
  state_dir   = "~/.local/state/axon"
  plugin_dir  = "../bin"            # relative to this file: where `make` puts the plugins

  # The paid gate: without it no request goes to a tier "api" provider.
  billing { enabled = true }
}

# Z.ai's GLM through its Anthropic-compatible endpoint. The preset fills
# plugin, base_url, auth and credential = env("ZAI_API_KEY").
provider "glm" {
  preset         = "glm"
  model          = "glm-4.6"
  tier           = "sub"
  good_at        = ["chat", "code"]
  context_window = 200000

  pricing {
    input_per_mtok      = 0.6
    output_per_mtok     = 2.2
    cache_read_per_mtok = 0.11
  }

  timeouts {
    first_token = "45s"
    idle        = "30s"
  }
}

# Anthropic directly, key in a file only the owner can read. Arguments the
# host does not own (here base_url and model) go to the anthropic plugin,
# which checks them against the schema it declares.
provider "claude" {
  plugin     = "anthropic"
  base_url   = "https://api.anthropic.com"
  model      = "claude-sonnet-4-5"
  credential = file("~/.config/axon/anthropic.key")
  tier       = "api"
  enabled    = true                   # behind the paid gate: the last resort of every chain
  good_at    = ["code", "reasoning"]
  context_window = 200000

  budget { usd_per_month = 20 }       # skipped for the rest of the month once reached

  auth {
    scheme = "header"
    name   = "x-api-key"
  }

  pricing {
    input_per_mtok       = 3
    output_per_mtok      = 15
    cache_read_per_mtok  = 0.3
    cache_write_per_mtok = 3.75
  }

  egress {
    connect_timeout    = "5s"
    response_timeout   = "3m"
    max_response_bytes = 16777216
  }
}

# A local model: no key, free, slow to start when cold.
provider "local" {
  preset = "ollama"
  model  = "qwen2.5:7b"
}

chain "default" {
  providers = [provider.glm, provider.claude, provider.local]

  retry {
    attempts        = 2
    backoff         = "500ms"
    max_retry_after = "20s"
  }
}

# Code questions: the subscription first, the metered model only when it fails.
chain "code" {
  providers                     = [provider.claude, provider.glm]
  allow_content_filter_fallback = true
}

# Offline-only, for private notes.
chain "private" {
  providers = [provider.local]
}

# The face, drawn in the terminal `axon serve` runs in and pinned to its
# bottom rows while the log scrolls above. The sandbox shows the plugin only
# what its block grants: "/dev/tty" is that terminal. (Under systemd there is
# none: set tty to a file and grant its directory, or use the png display.)
display "term" {
  grant {
    devices = ["/dev/tty"]
  }
}

vault {
  dir = "~/.config/axon/vault"
}
