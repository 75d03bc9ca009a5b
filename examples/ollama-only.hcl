# Everything on this machine: no key, no network beyond loopback.
#
#   ollama pull qwen2.5:3b && ollama pull llama3.2:1b
#   axon serve --config examples/ollama-only.hcl

provider "qwen" {
  preset = "ollama"             # http://127.0.0.1:11434/v1, no credential
  model  = "qwen2.5:3b"
}

# A smaller model as fallback when the first one fails to load.
provider "llama" {
  preset = "ollama"
  model  = "llama3.2:1b"

  timeouts {
    first_token = "5m"          # a cold model on a small board takes a while
  }
}

chain "default" {
  providers = [provider.qwen, provider.llama]

  retry {
    attempts = 1                # a local server that fails will not recover in 500ms
  }
}
