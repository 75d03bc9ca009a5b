provider "glm" {
  preset     = "glm"
  model      = "glm-4.6"
  credentail = env("ZAI_API_KEY")
}

chain "default" {
  providers = [provider.glm]
}
