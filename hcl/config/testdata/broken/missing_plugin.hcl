provider "ollama" {
  model = "qwen2.5:3b"
}

provider "mine" {
  plugin = "../../bin/sh"
}

tool "Web_Search" {}

chain "default" {
  providers = [provider.ollama, provider.mine]
}
