provider "local" {
  preset = "ollama"
}

provider "local" {
  preset = "ollama"
  model  = "llama3.2:1b"
}

chain "default" {
  providers = [provider.local]
}

chain "default" {
  providers = [provider.local]
}

display "term" {}
display "term" {}
