provider "local" {
  preset = "ollama"
  budget { usd_per_month = 5 }   # free tokens: never reached
}

provider "off" {
  preset  = "ollama"
  enabled = false
}

provider "gpt" {
  preset  = "openai"
  model   = "gpt-4o"
  enabled = true                 # but billing is off
}

chain "default" {
  providers = [provider.local, provider.gpt]
}

chain "paid" {
  providers = [provider.gpt, provider.off]
}

chain "gated" {
  providers = [provider.gpt]
  classifier { provider = provider.off }
}

provider "glm" {
  preset = "glm"
  model  = "glm-4.6"
  tier   = "sub"
}

chain "remote" {
  providers = [provider.glm]
  classifier { provider = provider.local }
}
