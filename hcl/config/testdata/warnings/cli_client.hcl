# A command-line client that loads, with what it cannot do.
provider "claude" {
  preset  = "claude-code"
  sandbox = "none"
}

provider "codex" {
  preset = "codex"
  model  = "gpt-5"
  egress {
    proxy = false
  }
}

chain "default" {
  providers = [provider.claude, provider.codex]
}
