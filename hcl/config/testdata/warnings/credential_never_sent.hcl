provider "lan" {
  preset     = "ollama"
  base_url   = "http://192.168.1.20:11434/v1"
  credential = env("LAN_KEY")
}

provider "proxy" {
  plugin     = "openai"
  base_url   = "http://proxy.internal:8080/v1"
  credential = file("proxy.key")

  auth {
    scheme = "bearer"
  }
}

chain "default" {
  providers = ["lan", "provider.proxy"]
}
