# A command-line client's home and egress proxy, written wrong.
provider "claude" {
  preset = "claude-code"
  home   = "~/.config/axon/no-such-home"
}

provider "mine" {
  plugin = "cli"
  home   = "/"
}

tool "fetcher" {
  egress {
    proxy = true
  }
}

display "panel" {
  home = "~/.config/axon/claude-home"
}

chain "default" {
  providers = [provider.claude, provider.mine]
}
