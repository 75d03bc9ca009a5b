provider "leaky" {
  preset     = "openai"
  model      = "gpt-x"
  credential = "sk-live-DO-NOT-PRINT-0123456789"
}

provider "typo" {
  preset     = "openai"
  model      = "gpt-x"
  credential = "env:"
}

provider "badenv" {
  preset     = "openai"
  model      = "gpt-x"
  credential = env("1NOT-A-NAME")
}

chain "default" {
  providers = [provider.leaky, provider.typo, provider.badenv]
}
