provider "glm" {
  preset = "glm"
  model  = "glm-4.6"
}

provider "local" {
  preset = "ollama"
}

chain "default" {
  providers = [provider.glmm, provider.local, provider.local, module.x]
}
