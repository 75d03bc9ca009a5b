provider "spaced" {
  preset     = "openai"
  model      = "gpt-x"
  credential = "file:/run/secrets/openai.key "
}

provider "spacedfn" {
  preset     = "openai"
  model      = "gpt-x"
  credential = file("/run/secrets/openai.key ")
}

provider "nopath" {
  preset     = "openai"
  model      = "gpt-x"
  credential = "file:"
}

chain "default" {
  providers = [provider.spaced, provider.spacedfn, provider.nopath]
}
