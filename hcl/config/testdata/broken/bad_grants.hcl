axon {
  plugin_ids = "5-3"
}

tool "notes" {
  dir = "/srv/notes"

  grant {
    read_write = ["/srv/notes", "relative/but/fine", "/"]
    read_only  = "/etc/ssl"
    devices    = ["/srv/spidev0.0"]
  }
}

chain "default" {
  providers = [provider.local]
}

provider "local" {
  preset = "ollama"
}
