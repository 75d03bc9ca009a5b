axon {
  billing { enabled = "true" }   # a string never enables anything
}

provider "local" { preset = "ollama" }

provider "glm" {
  preset  = "glm"
  model   = "glm-4.6"
  enabled = 1
  budget { usd_per_month = 0 }
}

provider "gpt" {
  preset = "openai"
  budget {}
}

chain "default" {
  providers = [provider.local, provider.glm, provider.gpt]
  strategy  = "fastest"
  classifier {
    provider = provider.glm
    timeout  = "soon"
  }
}

chain "other" {
  providers  = [provider.glm]
  strategy   = "lowest-cost"
  classifier { provider = provider.olama }
}
