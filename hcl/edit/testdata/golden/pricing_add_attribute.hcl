# axon.hcl on the workstation: a subscription first, a metered model as
# the last resort, a local model for when the network is down.

axon {
  listen    = "127.0.0.1:7070"
  state_dir = "~/.local/state/axon" # sessions, usage, the token

  # The paid gate: without it no request goes to a tier "api" provider.
  billing { enabled = false } # flipped on when the budget is set
}

# Z.ai's GLM through its Anthropic-compatible endpoint.
provider "glm" {
  preset  = "glm"
  model   = "glm-4.6"
  tier    = "sub"               # flat rate
  good_at = ["chat", "code"]

  # Prices from the plan page, USD per million tokens.
  pricing {
    input_per_mtok      = 0.6
    output_per_mtok     = 2.2 # as of June
    cache_read_per_mtok = 0.11
  }

  timeouts {
    first_token = "45s"
    idle        = "30s"
  }
}

# Anthropic directly, key in a file only the owner can read.
provider "claude" {
  plugin     = "anthropic"
  base_url   = "https://api.anthropic.com"
  model      = "claude-sonnet-4-5"
  credential = file("~/.config/axon/anthropic.key")
  tier       = "api"
  # Behind the paid gate: the last resort of every chain.
  enabled    = true # keep this one
  good_at    = ["code", "reasoning"]

  budget { usd_per_month = 20 } # skipped for the rest of the month once reached

  pricing {
    input_per_mtok  = 3
    output_per_mtok = 15
    cache_write_per_mtok = 3.75
    cache_read_per_mtok  = 0.3
  }
}

# A local model: no key, free, slow to start when cold.
provider "local" {
  preset = "ollama"
  model  = "qwen2.5:7b" # the small one
}

chain "default" {
  # Cheapest first.
  providers = [provider.glm, provider.claude, provider.local]

  retry {
    attempts = 2
    backoff  = "500ms"
  }
}

# Code questions: the metered model first.
chain "code" {
  providers = [provider.claude, provider.glm, provider.local]
  strategy  = "ordered" # try them as listed

  # Trivial questions go to the local model.
  classifier {
    provider = provider.local
    timeout  = "2s"
  }
}

chain "private" {
  providers = [provider.local]
}
